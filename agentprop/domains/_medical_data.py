"""Static data of the medical world: formulary, real interaction pairs, doctors, patient
profiles. Kept apart from the tool code so the clinical content can be reviewed on its own.

The interaction table lists well-documented pairs (standard interaction references); any
pair not listed is reported as severity "none" within this formulary.
"""

from __future__ import annotations

# name -> (drug class, typical indication)
FORMULARY: dict[str, tuple[str, str]] = {
    "warfarin": ("vitamin K antagonist anticoagulant", "atrial fibrillation, thrombosis"),
    "aspirin": ("antiplatelet / NSAID", "secondary prevention of coronary disease"),
    "clopidogrel": ("P2Y12 antiplatelet", "coronary stent, acute coronary syndrome"),
    "ibuprofen": ("NSAID", "pain, inflammation"),
    "paracetamol": ("analgesic", "pain, fever"),
    "fluconazole": ("azole antifungal", "fungal infections"),
    "amiodarone": ("class III antiarrhythmic", "atrial fibrillation, arrhythmia"),
    "digoxin": ("cardiac glycoside", "atrial fibrillation, heart failure"),
    "simvastatin": ("statin", "hypercholesterolaemia"),
    "atorvastatin": ("statin", "hypercholesterolaemia"),
    "clarithromycin": ("macrolide antibiotic", "respiratory infections"),
    "amoxicillin": ("penicillin antibiotic", "bacterial infections"),
    "ciprofloxacin": ("fluoroquinolone antibiotic", "urinary tract infections"),
    "trimethoprim": ("antibiotic", "urinary tract infections"),
    "sildenafil": ("PDE5 inhibitor", "erectile dysfunction"),
    "nitroglycerin": ("nitrate vasodilator", "angina"),
    "isosorbide mononitrate": ("long-acting nitrate", "angina prophylaxis"),
    "lisinopril": ("ACE inhibitor", "hypertension, heart failure"),
    "losartan": ("angiotensin receptor blocker", "hypertension"),
    "amlodipine": ("calcium channel blocker", "hypertension"),
    "metoprolol": ("beta blocker", "hypertension, angina"),
    "spironolactone": ("potassium-sparing diuretic", "heart failure"),
    "furosemide": ("loop diuretic", "oedema, heart failure"),
    "hydrochlorothiazide": ("thiazide diuretic", "hypertension"),
    "potassium chloride": ("potassium supplement", "hypokalaemia"),
    "metformin": ("biguanide", "type 2 diabetes"),
    "insulin glargine": ("long-acting insulin", "diabetes"),
    "cimetidine": ("H2 antagonist", "peptic ulcer"),
    "omeprazole": ("proton pump inhibitor", "reflux, peptic ulcer"),
    "sertraline": ("SSRI antidepressant", "depression, anxiety"),
    "fluoxetine": ("SSRI antidepressant", "depression"),
    "tramadol": ("opioid analgesic", "moderate to severe pain"),
    "levothyroxine": ("thyroid hormone", "hypothyroidism"),
    "calcium carbonate": ("calcium supplement", "osteoporosis"),
    "methotrexate": ("antimetabolite", "rheumatoid arthritis"),
    "allopurinol": ("xanthine oxidase inhibitor", "gout"),
    "azathioprine": ("immunosuppressant", "autoimmune disease"),
    "lithium": ("mood stabiliser", "bipolar disorder"),
    "tizanidine": ("muscle relaxant", "spasticity"),
    "salbutamol": ("short-acting beta agonist", "asthma"),
    "cetirizine": ("antihistamine", "allergic rhinitis"),
    "prednisone": ("corticosteroid", "inflammation"),
}

# Other accepted spellings -> formulary name (lower case).
DRUG_ALIASES: dict[str, str] = {
    "acetaminophen": "paracetamol",
    "albuterol": "salbutamol",
    "glyceryl trinitrate": "nitroglycerin",
    "gtn": "nitroglycerin",
    "levothyroxine sodium": "levothyroxine",
    "prednisolone": "prednisone",
}

# (drug, drug, severity, reason): real, well-known interactions.
INTERACTIONS: list[tuple[str, str, str, str]] = [
    ("warfarin", "aspirin", "high", "increased bleeding risk"),
    ("warfarin", "ibuprofen", "high", "increased bleeding risk (NSAID with anticoagulant)"),
    ("warfarin", "fluconazole", "high",
     "fluconazole inhibits CYP2C9, raising warfarin levels and the INR"),
    ("warfarin", "amiodarone", "high",
     "amiodarone inhibits warfarin metabolism, raising the INR and bleeding risk"),
    ("warfarin", "ciprofloxacin", "moderate", "ciprofloxacin can raise the INR"),
    ("warfarin", "clarithromycin", "moderate", "clarithromycin can raise the INR"),
    ("simvastatin", "clarithromycin", "high",
     "CYP3A4 inhibition raises simvastatin levels: risk of myopathy and rhabdomyolysis"),
    ("atorvastatin", "clarithromycin", "moderate",
     "CYP3A4 inhibition raises atorvastatin levels: increased myopathy risk"),
    ("simvastatin", "amiodarone", "moderate",
     "increased risk of myopathy; limit simvastatin to 20 mg daily"),
    ("simvastatin", "amlodipine", "moderate",
     "amlodipine raises simvastatin levels; limit simvastatin to 20 mg daily"),
    ("sildenafil", "nitroglycerin", "high", "severe, potentially fatal hypotension"),
    ("sildenafil", "isosorbide mononitrate", "high", "severe, potentially fatal hypotension"),
    ("lisinopril", "spironolactone", "moderate", "risk of hyperkalaemia"),
    ("lisinopril", "potassium chloride", "moderate", "risk of hyperkalaemia"),
    ("losartan", "spironolactone", "moderate", "risk of hyperkalaemia"),
    ("lisinopril", "ibuprofen", "moderate",
     "reduced antihypertensive effect and risk of acute kidney injury"),
    ("metformin", "cimetidine", "moderate",
     "cimetidine reduces renal clearance of metformin: risk of lactic acidosis"),
    ("clopidogrel", "omeprazole", "moderate",
     "omeprazole inhibits CYP2C19 activation of clopidogrel, reducing its antiplatelet effect"),
    ("clopidogrel", "aspirin", "moderate", "additive bleeding risk"),
    ("sertraline", "tramadol", "high", "risk of serotonin syndrome and seizures"),
    ("fluoxetine", "tramadol", "high", "risk of serotonin syndrome and seizures"),
    ("levothyroxine", "calcium carbonate", "moderate",
     "calcium reduces levothyroxine absorption; separate doses by 4 hours"),
    ("ciprofloxacin", "tizanidine", "high",
     "ciprofloxacin inhibits CYP1A2, causing severe hypotension and sedation"),
    ("digoxin", "amiodarone", "high", "amiodarone raises digoxin levels: risk of toxicity"),
    ("methotrexate", "trimethoprim", "high", "additive antifolate effect: bone marrow suppression"),
    ("allopurinol", "azathioprine", "high",
     "allopurinol blocks azathioprine breakdown: severe bone marrow suppression"),
    ("lithium", "ibuprofen", "moderate", "NSAIDs raise lithium levels: risk of toxicity"),
    ("lithium", "hydrochlorothiazide", "high", "thiazides raise lithium levels: risk of toxicity"),
    ("digoxin", "furosemide", "moderate",
     "diuretic-induced hypokalaemia increases digoxin toxicity"),
    ("metoprolol", "fluoxetine", "moderate",
     "fluoxetine inhibits CYP2D6, raising metoprolol levels (bradycardia)"),
]

SPECIALTIES: list[str] = [
    "cardiology",
    "endocrinology",
    "gastroenterology",
    "general practice",
    "neurology",
    "psychiatry",
    "pulmonology",
    "rheumatology",
]

# How a query names a doctor of the specialty.
SPECIALIST_NOUN: dict[str, str] = {
    "cardiology": "a cardiologist",
    "endocrinology": "an endocrinologist",
    "gastroenterology": "a gastroenterologist",
    "general practice": "a general practitioner",
    "neurology": "a neurologist",
    "psychiatry": "a psychiatrist",
    "pulmonology": "a pulmonologist",
    "rheumatology": "a rheumatologist",
}

WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# (doctor_id, name, specialty, weekdays worked as 0=Monday..6=Sunday)
DOCTORS: list[tuple[str, str, str, tuple[int, ...]]] = [
    ("D101", "Dr. Amara Okafor", "cardiology", (0, 2, 4)),
    ("D102", "Dr. Henrik Lindqvist", "cardiology", (1, 3)),
    ("D103", "Dr. Priya Raman", "cardiology", (0, 1, 3)),
    ("D104", "Dr. Lucas Moreau", "endocrinology", (1, 2, 4)),
    ("D105", "Dr. Sofia Castillo", "endocrinology", (0, 3)),
    ("D106", "Dr. Daniel Whitaker", "gastroenterology", (0, 2)),
    ("D107", "Dr. Mei Tanaka", "gastroenterology", (1, 4)),
    ("D108", "Dr. Grace Mensah", "general practice", (0, 1, 2, 3, 4)),
    ("D109", "Dr. Tomasz Nowak", "general practice", (2, 3, 4, 5)),
    ("D110", "Dr. Elena Petrova", "neurology", (1, 3)),
    ("D111", "Dr. Samuel Adeyemi", "neurology", (0, 4)),
    ("D112", "Dr. Hannah Becker", "psychiatry", (0, 1, 2)),
    ("D113", "Dr. Omar Haddad", "psychiatry", (3, 4)),
    ("D114", "Dr. Isabel Ferreira", "pulmonology", (0, 2, 4)),
    ("D115", "Dr. Kenji Watanabe", "rheumatology", (1, 3)),
    ("D116", "Dr. Claire Dubois", "rheumatology", (2, 4)),
]

# Clinic slots: every half hour from 08:00 to 16:30.
SLOT_TIMES: list[str] = [f"{h:02d}:{m:02d}" for h in range(8, 17) for m in (0, 30)]

# (conditions, medications): coherent treatment profiles. The first two medications are
# the pair a "do their medications interact" task checks; many profiles hold a real
# interacting pair, as such combinations do occur in practice and need review.
PROFILES: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("atrial fibrillation", "coronary artery disease"), ("warfarin", "aspirin")),
    (("hypercholesterolaemia", "community-acquired pneumonia"), ("simvastatin", "clarithromycin")),
    (("erectile dysfunction", "stable angina"), ("sildenafil", "nitroglycerin")),
    (("hypertension", "heart failure"), ("lisinopril", "spironolactone")),
    (("type 2 diabetes", "peptic ulcer"), ("metformin", "cimetidine")),
    (("coronary stent", "gastro-oesophageal reflux"), ("clopidogrel", "omeprazole")),
    (("depression", "chronic back pain"), ("sertraline", "tramadol")),
    (("hypothyroidism", "osteoporosis"), ("levothyroxine", "calcium carbonate")),
    (("hypertension", "osteoarthritis"), ("lisinopril", "ibuprofen")),
    (("atrial fibrillation",), ("warfarin", "amiodarone")),
    (("rheumatoid arthritis", "urinary tract infection"), ("methotrexate", "trimethoprim")),
    (("gout", "autoimmune hepatitis"), ("allopurinol", "azathioprine")),
    (("heart failure", "atrial fibrillation"), ("digoxin", "furosemide")),
    (("bipolar disorder", "hypertension"), ("lithium", "hydrochlorothiazide")),
    (("hypertension", "type 2 diabetes"), ("amlodipine", "metformin")),
    (("asthma", "allergic rhinitis"), ("salbutamol", "cetirizine")),
    (("hypothyroidism", "hypertension"), ("levothyroxine", "losartan")),
    (("depression", "gastro-oesophageal reflux"), ("sertraline", "omeprazole")),
    (("type 1 diabetes", "hypercholesterolaemia"), ("insulin glargine", "atorvastatin")),
    (("hypertension", "stable angina"), ("metoprolol", "amlodipine")),
    (("osteoarthritis", "hypercholesterolaemia"), ("paracetamol", "atorvastatin")),
    (("gout", "hypertension"), ("allopurinol", "losartan")),
    (("asthma", "eczema flare"), ("salbutamol", "prednisone")),
    (("type 2 diabetes", "hypercholesterolaemia"), ("metformin", "simvastatin")),
]

# Optional third condition and medication.
EXTRA: list[tuple[str, str]] = [
    ("hypertension", "amlodipine"),
    ("gastro-oesophageal reflux", "omeprazole"),
    ("osteoarthritis", "paracetamol"),
    ("hypercholesterolaemia", "atorvastatin"),
    ("allergic rhinitis", "cetirizine"),
    ("hypertension", "metoprolol"),
    ("oedema", "furosemide"),
]

ALLERGENS: list[str] = [
    "penicillin",
    "sulfonamides",
    "codeine",
    "latex",
    "iodinated contrast",
    "erythromycin",
    "morphine",
    "peanuts",
]

FIRST_NAMES_F = [
    "Maria", "Aisha", "Emma", "Olivia", "Fatima", "Chloe", "Ingrid", "Lucia", "Naomi",
    "Zara", "Hana", "Beatriz", "Rosa", "Yuki", "Leila", "Anna", "Ruth", "Nadia",
]
FIRST_NAMES_M = [
    "James", "Mohammed", "Liam", "Noah", "Carlos", "Arjun", "Felix", "Ivan", "Kwame",
    "David", "Mateo", "Hiro", "Omar", "Peter", "Samir", "Jonas", "Luca", "Ethan",
]
LAST_NAMES = [
    "Lopez", "Khan", "Smith", "Nguyen", "Garcia", "Müller", "Rossi", "Okonkwo", "Silva",
    "Jensen", "Kowalski", "Haddad", "Patel", "Brown", "Sato", "Dubois", "Novak", "Ahmed",
    "Andersen", "Costa", "Walsh", "Ibrahim", "Fischer", "Mendes", "Larsen", "Choi",
]
