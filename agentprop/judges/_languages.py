"""Words of answers written in another language: German, French, Spanish, Italian,
Portuguese, Dutch, Chinese and Japanese (the labelling rule accepts any language that states
the truth). Data only: `_extract` reads the months, days and clock words, `_lexicon` adds
the cues to its English tables, `_entities` the city names and drug spellings. Matched
like the English words, on folded text (lower-case, accents stripped).
"""

from __future__ import annotations

# -- dates and times -------------------------------------------------------------------------

MONTHS: dict[str, int] = {
    **dict.fromkeys(("januar", "janvier", "enero", "gennaio", "janeiro", "januari"), 1),
    **dict.fromkeys(("februar", "fevrier", "febrero", "febbraio", "fevereiro", "februari"), 2),
    **dict.fromkeys(("marz", "maerz", "mars", "marzo", "marco", "maart"), 3),
    **dict.fromkeys(("avril", "abril", "aprile"), 4),
    **dict.fromkeys(("mai", "mayo", "maggio", "maio", "mei"), 5),
    **dict.fromkeys(("juni", "juin", "junio", "giugno", "junho"), 6),
    **dict.fromkeys(("juli", "juillet", "julio", "luglio", "julho"), 7),
    **dict.fromkeys(("aout", "agosto", "augustus"), 8),
    **dict.fromkeys(("septembre", "septiembre", "settembre", "setembro"), 9),
    **dict.fromkeys(("oktober", "octobre", "octubre", "ottobre", "outubro"), 10),
    **dict.fromkeys(("novembre", "noviembre", "novembro"), 11),
    **dict.fromkeys(("dezember", "decembre", "diciembre", "dicembre", "dezembro"), 12),
    # Russian, in the genitive a date uses ("18 июня"; folded: й is и)
    **{m: i for i, m in enumerate(("января", "февраля", "марта", "апреля", "мая", "июня",
                                   "июля", "августа", "сентября", "октября", "ноября",
                                   "декабря"), 1)},
}
# today / tomorrow / the day after tomorrow, as days from the reference day
# weekday names (folded), 0 = Monday; Portuguese only with "-feira" ("segunda" is "second")
_WD_NAMES: tuple[tuple[str, ...], ...] = (
    ("montag", "lundi", "lunes", "lunedi", "segunda-feira", "maandag", "星期一", "周一",
     "礼拜一", "月曜日"),
    ("dienstag", "mardi", "martes", "martedi", "terca-feira", "dinsdag", "星期二", "周二",
     "礼拜二", "火曜日"),
    ("mittwoch", "mercredi", "miercoles", "mercoledi", "quarta-feira", "woensdag", "星期三",
     "周三", "礼拜三", "水曜日"),
    ("donnerstag", "jeudi", "jueves", "giovedi", "quinta-feira", "donderdag", "星期四", "周四",
     "礼拜四", "木曜日"),
    ("freitag", "vendredi", "viernes", "venerdi", "sexta-feira", "vrijdag", "星期五", "周五",
     "礼拜五", "金曜日"),
    ("samstag", "sonnabend", "samedi", "sabado", "sabato", "zaterdag", "星期六", "周六",
     "礼拜六", "土曜日"),
    ("sonntag", "dimanche", "domingo", "domenica", "zondag", "星期日", "星期天", "周日",
     "周天", "礼拜日", "礼拜天", "日曜日"),
)
# Korean and Russian (accusative too: "в среду")
_WD_NAMES = tuple((*names, *more) for names, more in zip(_WD_NAMES, (
    ("월요일", "понедельник"), ("화요일", "вторник"), ("수요일", "среда", "среду"),
    ("목요일", "четверг"), ("금요일", "пятница", "пятницу"), ("토요일", "суббота", "субботу"),
    ("일요일", "воскресенье")), strict=True))
WEEKDAY_NAMES: dict[str, int] = {w: i for i, names in enumerate(_WD_NAMES) for w in names}
# words next to a weekday that may move it by a week ("nächsten Mittwoch", "mercredi
# prochain", "el próximo miércoles", "下周三"): read as either week
WEEK_SHIFTS = ("nachsten", "nachste", "kommenden", "kommende", "letzten", "prochain",
               "prochaine", "dernier", "proximo", "proxima", "pasado", "prossimo",
               "prossima", "scorso", "que vem", "passado", "volgende", "vorige", "下", "上",
               "来週", "先週", "次の")
RELATIVE_DAYS: dict[str, int] = {
    **dict.fromkeys(("heute", "aujourd'hui", "hoy", "oggi", "hoje", "vandaag", "今天", "今日",
                     "сегодня", "오늘"), 0),
    **dict.fromkeys(("morgen", "demain", "manana", "domani", "amanha", "明天", "明日",
                     "завтра", "내일"), 1),
    **dict.fromkeys(("ubermorgen", "apres-demain", "pasado manana", "dopodomani",
                     "depois de amanha", "overmorgen", "后天", "明後日"), 2),
}
# words that set one value against another, like "vs" ("65 $ frente a 92 $")
VERSUS = ("gegenüber", "gegenuber", "contre", "face à", "face a", "frente a", "contra",
          "contro", "tegenover",
          # "instead of": "263,95 $ statt 343,99 $"
          "statt", "anstatt", "au lieu de", "en lugar de", "en vez de", "invece di",
          "em vez de")
# "vs" between two values in Chinese, Japanese and Korean ("14.9°C对13.7°C")
CJK_VERSUS = ("对", "對", "対", "대")
# words joining the two ends of a time range ("von 10:00 bis 11:00", "de 8 h à 9 h")
RANGE_WORDS = ("bis", "a", "al", "ate", "tot", "到", "至", "から")
# words before a time or day that say what an event was before it moved ("statt 17 Uhr",
# "au lieu de mardi", "von 17:00 auf 16:45")
WAS_BEFORE = ("statt", "anstatt", "vorher", "bisher", "ursprunglich", "von", "au lieu de",
              "auparavant", "initialement", "en lugar de", "en vez de", "antes", "invece di",
              "prima", "em vez de", "originalmente")

# -- cues: what an answer says was done, and yes/no claims -----------------------------------

DONE = ("erledigt", "fertig", "c'est fait", "termine", "listo", "hecho", "fatto", "pronto",
        "feito", "klaar", "gedaan", "完成", "已完成", "完了しました", "готово", "완료")
CREATED: tuple[str, ...] = (
    "eingetragen", "hinzugefugt", "angelegt", "erstellt", "eingeplant", "ajoute",
           "cree", "planifie", "anadido", "agregado", "creado", "programado",
           "agendado", "aggiunto", "creato", "inserito", "programmato", "adicionado", "criado",
           "agende", "anadi", "agregue", "programe", "adicionei", "criei", "agendei",
           "marcado", "toegevoegd", "aangemaakt", "ingepland", "已添加", "已创建", "已安排",
           "marquei", "安排了", "追加しました", "登録しました", "作成しました",
           # holding the slot: "belegt jetzt", "occupe désormais", "ocupa ahora"
           "belegt jetzt", "occupe desormais", "occupe maintenant", "ocupa ahora", "occupa ora",
           "ocupa agora", "neemt nu")
DELETED: tuple[str, ...] = (
    "geloscht", "entfernt", "abgesagt", "storniert", "supprime", "annule", "borre",
           "elimine", "cancele", "apaguei", "exclui", "cancelei", "removi",
           "eliminado", "borrado", "cancelado", "cancellato", "eliminato", "rimosso",
           "excluido", "removido", "apagado", "verwijderd", "geannuleerd", "已删除", "已取消",
           "削除しました", "キャンセルしました")
MOVED: tuple[str, ...] = (
    "verschoben", "verlegt", "deplace", "reporte", "decale", "movido", "trasladado",
         "reprogramado", "cambiado", "spostato", "riprogrammato", "movi", "remarcado",
         "movido", "cambie", "mude", "mudei", "remarquei",
         "mudado", "verplaatst", "verzet", "已移至", "改到", "已改", "移動しました",
         "変更しました")
BOOKED: tuple[str, ...] = ("gebucht", "reserviert", "termin vereinbart", "pris rendez-vous",
          "rendez-vous reserve", "rendez-vous confirme", "reserve pour",
          "reservado", "cita reservada", "cita confirmada", "prenotato", "prenotata",
          "appuntamento confermato", "agendada", "agendado", "marcada", "marcado",
          "consulta marcada", "geboekt", "已预约", "预约了", "已为您预约", "已安排", "安排了",
          "予約しました", "予約が完了", "予約を取りました", "予約が取れました", "予約済み",
          "예약했습니다", "예약되었습니다", "예약이 완료")
ORDERED: tuple[str, ...] = ("bestellt", "bestellung aufgegeben", "commande passee", "pedido",
           "he pedido", "pedi", "encomendado", "encomenda", "encomendei", "ordinato",
           "ordine effettuato",
           "besteld", "已下单", "已订购", "订购了", "注文しました",
           # bought: "gekauft", "acheté", "compré", "comprei", "comprato", "已购买", "購入しました"
           "gekauft", "achete", "commande", "compre", "he comprado", "comprei", "comprado",
           "comprato", "acquistato", "gekocht", "已购买", "购买了", "买了", "已买", "購入しました")
RAIN: tuple[str, ...] = (
    "regen", "regnet", "schauer", "pluie", "pleut", "averses", "lluvia", "llueve",
        "chubascos", "pioggia", "piove", "rovesci", "chuva", "chove", "aguaceiros", "regent",
        "下雨", "有雨", "降雨", "雨が降")
NO_RAIN: tuple[str, ...] = ("kein regen", "keinen regen", "trocken", "pas de pluie", "sin lluvia",
           "no llueve", "no va a llover", "seco", "niente pioggia", "nessuna pioggia",
           "non piove", "asciutto", "sem chuva", "nao chove", "nao vai chover", "geen regen",
           "droog", "不会下雨", "不下雨", "没有雨", "无雨", "雨は降らない", "降らない")
# an umbrella is a rain cue (negated: none needed); CJK negations are spelled out, the
# others are read by the negation words before them ("kein Regenschirm", "pas besoin de
# parapluie")
UMBRELLA = ("regenschirm", "schirm", "parapluie", "paraguas", "ombrello", "paraplu", "зонт",
            "带伞", "雨伞", "傘を", "傘が", "우산")
NO_UMBRELLA = ("不需要带伞", "不用带伞", "无需带伞", "不必带伞", "不需要雨伞", "不用雨伞",
               "不需要伞", "不用伞", "傘は不要", "傘は必要ありません", "傘はいりません",
               "傘はいらない", "傘は必要ない", "傘なしで", "우산은 필요 없", "우산이 필요 없",
               "우산 필요 없", "우산은 필요하지 않", "зонт не нужен", "без зонта")
RAIN = RAIN + UMBRELLA
NO_RAIN = NO_RAIN + NO_UMBRELLA
INTERACTS = ("wechselwirkung", "interaccion", "interazione", "interacao",
             "interactie", "相互作用")
NO_INTERACTION: tuple[str, ...] = ("keine wechselwirkung", "keine bekannte wechselwirkung",
                  "keine wechselwirkungen", "aucune interaction", "pas d'interaction",
                  "aucune interaction connue", "sin interaccion", "ninguna interaccion",
                  "no hay interaccion", "no hay interaccion conocida", "nessuna interazione",
                  "non interagiscono", "nao ha interacao", "nao ha interacao conhecida",
                  "sem interacao", "nenhuma interacao", "geen interactie",
                  "geen bekende interactie", "没有相互作用", "无相互作用", "相互作用はありません",
                  # a verb negated ("no interactúan", "interagieren nicht")
                  "no interactuan", "no interactua", "nao interagem", "nao interage",
                  "non interagisce", "n'interagit pas", "n'interagissent pas",
                  "interagieren nicht", "interagiert nicht", "interageren niet",
                  "interageert niet", "不会相互作用", "无已知相互作用", "没有已知的相互作用",
                  "相互作用なし", "相互作用はない", "상호작용 없음", "상호작용이 없습니다",
                  "нет взаимодействия", "не взаимодействуют")


# Korean and Russian action verbs (Russian folded: "перенёс" is "перенес")
CREATED += ("추가했습니다", "생성했습니다", "만들었습니다", "등록했습니다", "создал", "создала",
            "создано", "добавил", "добавила", "добавлено", "запланировал", "запланировано")
DELETED += ("삭제했습니다", "취소했습니다", "삭제되었습니다", "удалил", "удалила", "удалено",
            "отменил", "отменила", "отменено")
MOVED += ("옮겼습니다", "변경했습니다", "이동했습니다", "перенес", "перенесла", "перенесено",
          "передвинул", "сдвинул")
BOOKED += ("забронировал", "забронировано", "записал", "записала", "записан", "записана")
ORDERED += ("주문했습니다", "주문이 완료", "заказал", "заказала", "заказано", "заказ оформлен",
            "оформил заказ")


def _with_courtesy(cues: tuple[str, ...]) -> tuple[str, ...]:
    """A Chinese "已…" cue with "for you" or "already" between ("已为您下单", "已经删除"): the
    courtesy words are not part of the verb."""
    extra = tuple(f"已{w}{c[1:]}" for c in cues if c.startswith("已") and len(c) > 1
                  for w in ("为您", "为你", "帮您", "帮你", "给您", "经", "经为您"))
    return cues + extra


CREATED, DELETED, MOVED, BOOKED, ORDERED = (
    _with_courtesy(c) for c in (CREATED, DELETED, MOVED, BOOKED, ORDERED))


def _no_interaction_forms() -> tuple[str, ...]:
    """A negated "there is / it has an interaction", by language: each negation (with its
    verb) before the noun ("no tiene ninguna interacción", "não tem interação"); a "known"
    after the noun needs no phrase of its own. One rule, not one phrase at a time."""
    forms = {
        "interaccion": ("no hay", "no tiene", "no existe", "no presenta", "no hay ninguna",
                        "no tiene ninguna", "sin", "ninguna"),
        "interacao": ("nao ha", "nao tem", "nao existe", "nao apresenta", "nao ha nenhuma",
                      "nao tem nenhuma", "sem", "nenhuma"),
        "interazione": ("non c'e", "non ha", "non esiste", "non c'e nessuna", "non ha nessuna",
                        "nessuna", "senza"),
        "interaction": ("aucune", "n'a aucune", "n'y a aucune", "il n'y a aucune", "sans",
                        "n'a pas d'", "n'y a pas d'", "il n'y a pas d'", "pas d'"),
        "wechselwirkung": ("keine", "ohne", "es gibt keine", "hat keine"),
        "interactie": ("geen", "zonder", "er is geen", "heeft geen"),
    }
    plural = {"interaccion": "interacciones", "interacao": "interacoes",
              "interazione": "interazioni", "interaction": "interactions",
              "wechselwirkung": "wechselwirkungen", "interactie": "interacties"}
    forms.update({plural[n]: v for n, v in forms.items()})
    out = []
    for noun, negs in forms.items():
        for neg in negs:
            out.append(f"{neg}{noun}" if neg.endswith("'") else f"{neg} {noun}")
            if noun.startswith(("wechselwirkung", "interactie")):  # the adjective before
                out += [f"{neg} {k} {noun}" for k in ("bekannte", "bekende")]
    return tuple(dict.fromkeys(out))


NO_INTERACTION = NO_INTERACTION + _no_interaction_forms()
SEVERITY: dict[str, str] = {
    **dict.fromkeys(("schwer", "schwerwiegend", "ernst", "grave", "severa", "severo",
                     "elevee", "elevata", "elevada", "ernstig", "严重", "重度", "重大"), "high"),
    **dict.fromkeys(("mittelschwer", "moderat", "massig", "moderee", "moderada", "moderata",
                     "moderado", "matig", "中度", "中等"), "moderate"),
    **dict.fromkeys(("geringfugig", "legere", "leve", "lieve", "gering", "轻微", "轻度"),
                    "low"),
}
# offering alternatives or doubt ("Madrid oder Sydney", "vielleicht", "peut-être")
# "and" and "or" joining two names ("Insulin und Atorvastatin", "X ou Y")
AND_OR = ("und", "oder", "et", "ou", "y", "o", "e", "ni", "en", "of", "nor", "sowie")
# articles and prepositions that may open a coordinated name ("la simvastatine, la
# clarithromycine et le paracétamol", "con la X ni con la Y")
NAME_OPENERS = ("la", "le", "les", "l'", "el", "los", "las", "il", "lo", "gli", "i", "o", "os",
                "a", "as", "der", "die", "das", "den", "dem", "het", "de", "avec", "con",
                "com", "mit", "met", "du", "al", "ao", "à", "a la", "des", "del", "della",
                "dos")
ALTERNATIVES = ("oder", "entweder", "ou", "soit", "o", "oppure", "或者", "还是", "または")
HEDGES = ("vielleicht", "moglicherweise", "eventuell", "peut-etre", "quizas", "quiza",
          "tal vez", "posiblemente", "forse", "probabilmente", "talvez", "possivelmente",
          "misschien", "mogelijk", "可能", "也许", "或许", "かもしれ")
NO_DECISION = ("difficile a dire", "schwer zu sagen", "dificil de decir", "difficile da dire",
               "dificil dizer", "moeilijk te zeggen", "很难说", "难以判断", "何とも言えない")
SEVERITY_CONTEXT = ("wechselwirk", "interac", "interaz", "相互作用", "gravit", "schwere")
YES = ("ja", "oui", "si", "sim", "はい", "да", "네", "예")
NO = ("nein", "non", "nao", "nee", "いいえ", "нет", "아니요", "아니오")
# a negating determiner negates its noun only, up to one of these prepositions ("pas de
# pluie à Pékin", "kein Regen in Berlin")
DETERMINER_NEGATIONS = frozenset({"kein", "keine", "keinen", "pas", "aucun", "aucune", "sin",
                                  "ningun", "ninguna", "nessun", "nessuna", "sem", "nenhum",
                                  "nenhuma", "geen", "sans", "senza", "ohne", "zonder"})
SCOPE_ENDS = frozenset({"a", "en", "in", "im", "em", "no", "na", "bei", "dans", "entre",
                        "zwischen", "tra", "fra", "con", "mit", "avec", "com", "met", "para",
                        "pour", "fur", "per", "voor"})
NEGATIONS = frozenset({"nicht", "kein", "keine", "keinen", "keiner", "ohne", "pas", "jamais",
                       "aucun", "aucune", "sans", "nunca", "ningun", "ninguna", "sin", "non",
                       "nessun", "nessuna", "senza", "nao", "nenhum", "nenhuma", "sem",
                       "niet", "geen", "zonder", "nooit",
                       # "je n'ai rien commandé", "nichts gebucht", "no he pedido nada"
                       "rien", "n'ai", "n'a", "n'est", "n'avons", "n'ont", "nichts", "nie",
                       "nada", "niente", "nulla", "nemmeno",
                       # Russian
                       "не", "нет", "без", "ни", "никаких", "никакого", "ничего"})
# a CJK phrase opening with one of these negates itself ("没有相互作用", "無し")
CJK_NEGATIONS = frozenset("没無无不非")

# -- decisions -------------------------------------------------------------------------------

WARMER: tuple[str, ...] = ("am warmsten", "warmste", "plus chaud", "plus chaude", "le plus chaud",
          "la plus chaude", "mas calido", "mas caluroso", "mas calida", "piu caldo",
          "piu calda", "mais quente", "warmst", "最暖和", "最热", "更暖和", "更热",
          "一番暖かい", "最も暖かい")
COOLER: tuple[str, ...] = (
    "kalter", "kuhler", "am kaltesten", "plus froid", "plus froide", "plus frais",
          "mas frio", "mas fria", "mas fresco", "piu freddo", "piu fredda", "piu fresco",
          "mais frio", "mais fria", "kouder", "koeler", "更冷", "更凉")
CHEAPER: tuple[str, ...] = (
    "billiger", "gunstiger", "am billigsten", "am gunstigsten", "moins cher",
           "moins chere", "le moins cher", "la moins chere", "mas barato", "mas barata",
           "el mas barato", "la mas barata", "mas economico", "piu economico",
           "piu economica", "il piu economico", "mais barato", "mais barata", "o mais barato",
           "goedkoper", "goedkoopst", "goedkoopste", "更便宜", "最便宜", "最も安い", "一番安い")
DEARER: tuple[str, ...] = (
    "teurer", "am teuersten", "plus cher", "plus chere", "mas caro", "mas cara",
          "piu caro", "piu cara", "mais caro", "mais cara", "duurder", "更贵", "最贵")
BEST_RATED: tuple[str, ...] = (
    "am besten bewertet", "bestbewertet", "beste bewertung", "le mieux note",
              "la mieux notee", "mejor valorado", "mejor valorada", "mejor calificado",
              "piu votato", "meglio recensito", "meglio valutato", "melhor avaliado",
              "melhor avaliada", "best beoordeeld", "评分最高", "最高評価", "評価が最も高い")
DRIEST: tuple[str, ...] = (
    "am trockensten", "le plus sec", "mas seco", "piu secco", "mais seco", "droogst",
          "最干燥")


_MARKERS = {"zh": ("最", "更", "比较"), "ja": ("一番", "いちばん", "最も", "もっと"),
            "ko": ("가장 ", "제일 ", "더 "), "ru": ("самый ", "самая ", "самое ", "наиболее ")}


def _graded(**by_language: tuple[str, ...]) -> tuple[str, ...]:
    """A superlative or comparative in Chinese, Japanese, Korean or Russian: each of the
    language's markers ("最", "一番", "가장", "самый") before each form of the adjective."""
    return tuple(m + a for lang_, adjs in by_language.items() for a in adjs
                 for m in _MARKERS[lang_])


# Russian comparatives are one word ("теплее", "дешевле")
WARMER = WARMER + _graded(ja=("暖かい", "暑い", "温かい"), zh=("暖和", "温暖", "热"),
                          ko=("따뜻", "덥"), ru=("теплый", "теплая", "жаркий")) + (
    "теплее", "жарче")
COOLER = COOLER + _graded(ja=("寒い", "涼しい"), zh=("冷", "凉", "凉爽"), ko=("춥", "시원"),
                          ru=("холодный", "прохладный")) + ("холоднее", "прохладнее")
CHEAPER = CHEAPER + _graded(ja=("安い",), zh=("便宜", "实惠"), ko=("저렴", "싸"),
                            ru=("дешевый", "дешевая")) + ("дешевле",)
DEARER = DEARER + _graded(zh=("贵",), ko=("비싸",), ru=("дорогой", "дорогая")) + ("дороже",)
DRIEST = DRIEST + _graded(ja=("乾燥",), zh=("干燥",), ko=("건조",), ru=("сухой",)) + (
    "雨が最も少ない", "雨最少", "降雨最少", "суше")
BEST_RATED = (*BEST_RATED, "평점이 가장 높", "평점이 제일 높", "самый высокий рейтинг",
              "評価が一番高い", "評価がいちばん高い")

# the adjective after a CJK "than" ("A比B便宜", "AはBより安い", "A는 B보다 싸다"): (favours
# the option compared, disfavours it), by decision
THAN_ADJECTIVES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "warmer": (("暖和", "热", "温暖", "高", "暖かい", "暑い", "温かい", "따뜻", "덥"),
               ("冷", "凉", "低", "寒い", "涼しい", "춥", "시원")),
    "cheaper": (("便宜", "实惠", "低", "安い", "싸", "저렴"), ("贵", "高", "비싸")),
}

# -- scales ----------------------------------------------------------------------------------

CONDITIONS: dict[str, str] = {
    **dict.fromkeys(("sonnig", "ensoleille", "soleado", "soleggiato", "ensolarado", "zonnig",
                     "晴朗", "晴天", "晴れ"), "sunny"),
    **dict.fromkeys(("teilweise bewolkt", "leicht bewolkt", "heiter", "partiellement nuageux",
                     "parcialmente nublado", "parzialmente nuvoloso", "half bewolkt",
                     "局部多云", "晴时多云", "晴れ時々曇り"), "partly cloudy"),
    **dict.fromkeys(("bewolkt", "nuageux", "couvert", "nublado", "nuvoloso", "coperto",
                     "多云", "阴天", "曇り"), "cloudy"),
    **dict.fromkeys(("leichter regen", "leichtem regen", "leichte regen", "nieselregen",
                     "pluie legere", "bruine", "lluvia ligera", "llovizna", "pioggia leggera",
                     "pioggerella", "chuva fraca", "garoa", "lichte regen", "motregen",
                     "小雨"), "light rain"),
    **dict.fromkeys(("starker regen", "starkem regen", "forte pluie", "fortes pluies",
                     "lluvia fuerte", "fuertes lluvias", "lluvias fuertes", "forti piogge",
                     "pioggia forte", "chuva forte", "chuvas fortes", "zware regen", "大雨",
                     "暴雨"), "heavy rain"),
    **dict.fromkeys(("gewitter", "orages", "orage", "tormentas", "tormenta", "temporali",
                     "temporale", "trovoadas", "tempestades", "onweer", "雷阵雨", "雷雨"),
                    "thunderstorms"),
    **dict.fromkeys(("schnee", "neige", "nieve", "neve", "sneeuw", "雪"), "snow"),
    **dict.fromkeys(("regen", "regnerisch", "pluie", "pluvieux", "lluvia", "lluvioso",
                     "pioggia", "piovoso", "chuva", "chuvoso", "雨", "有雨"), "rain"),
    # Chinese one-character forms, Korean and Russian
    "晴": "sunny", "阴": "cloudy", "맑음": "sunny", "맑은": "sunny", "흐림": "cloudy",
    "구름 조금": "partly cloudy", "구름 많음": "cloudy", "ясно": "sunny", "солнечно": "sunny",
    "облачно": "cloudy", "пасмурно": "cloudy", "переменная облачность": "partly cloudy",
    "дождь": "rain", "гроза": "thunderstorms", "뇌우": "thunderstorms",
}
# the verb: it rains, it will rain (a verb takes no adjective endings)
RAIN_VERBS = ("regnet", "regnen", "pleut", "pleuvra", "pleuvoir", "llueve", "llovera", "llover",
              "lloviendo", "piove", "piovera", "piovere", "chove", "chovera", "chover", "regent",
              "regenen", "下雨", "雨が降")
# "partly" in each language, before a word for cloudy or sunny ("teils bewölkt",
# "partiellement ensoleillé", "parzialmente soleggiato"): partly cloudy
_PARTLY = {("teils", "teilweise", "zeitweise", "leicht"): ("sonnig", "bewolkt"),
           ("partiellement", "en partie"): ("ensoleille", "nuageux"),
           ("parcialmente",): ("soleado", "nublado", "ensolarado"),
           ("parzialmente",): ("soleggiato", "nuvoloso"),
           ("gedeeltelijk", "half"): ("zonnig", "bewolkt"),
           ("частично",): ("облачно", "солнечно")}
CONDITIONS.update({f"{p} {w}": "partly cloudy" for ps, ws in _PARTLY.items() for p in ps
                   for w in ws})
TREND: dict[str, str] = {
    **dict.fromkeys(("warmer als", "plus chaud que", "mas calido de lo", "piu caldo del",
                     "mais quente que", "warmer dan", "偏暖", "更暖和", "mas calido que",
                     "piu caldo di", "piu caldo della", "piu caldo rispetto",
                     "mais quente do que", "平年より暖か", "平年より高", "例年より暖か",
                     "比往年暖", "평년보다 따뜻", "теплее нормы", "выше нормы"), "warmer"),
    **dict.fromkeys(("kuhler als", "kalter als", "plus frais que", "plus froid que",
                     "mas fresco de lo", "mas frio de lo", "piu fresco del", "piu freddo del",
                     "mais fresco que", "mais frio que", "koeler dan", "kouder dan", "偏冷",
                     "更冷", "mas fresco que", "mas frio que", "piu fresco di", "piu freddo di",
                     "piu fresco rispetto", "piu fresco della", "piu freddo della",
                     "mais fresco do que", "mais frio do que", "平年より寒", "平年より低",
                     "平年より涼し", "例年より寒", "比往年冷", "평년보다 춥", "холоднее нормы",
                     "ниже нормы"),
                    "cooler"),
}

# -- list cues -------------------------------------------------------------------------------

ALLERGY_CUES = ("allergi", "alerg", "过敏", "アレルギー")
MEDICATION_CUES = ("medikament", "medicament", "farmac", "nimmt", "prend", "toma", "assume",
                   "neemt", "用药", "服用", "服薬")

# -- names -----------------------------------------------------------------------------------

CITY_NAMES: dict[str, tuple[str, ...]] = {
    "Athens": ("Athen", "Athènes", "Atenas", "Atene", "雅典", "アテネ"),
    "Auckland": ("奥克兰", "オークランド"),
    "Bangkok": ("曼谷", "バンコク"),
    "Beijing": ("Peking", "Pékin", "Pekín", "Pechino", "Pequim", "北京"),
    "Berlin": ("Berlino", "Berlim", "柏林", "ベルリン"),
    "Buenos Aires": ("布宜诺斯艾利斯", "ブエノスアイレス"),
    "Cairo": ("Kairo", "Le Caire", "El Cairo", "Il Cairo", "开罗", "カイロ"),
    "Cape Town": ("Kapstadt", "Le Cap", "Ciudad del Cabo", "Città del Capo",
                  "Cidade do Cabo", "Kaapstad", "开普敦", "ケープタウン"),
    "Chicago": ("芝加哥", "シカゴ"),
    "Delhi": ("Dehli", "Nueva Delhi", "Nuova Delhi", "Nova Deli", "德里", "デリー"),
    "Dubai": ("Dubái", "迪拜", "ドバイ"),
    "Hong Kong": ("Hongkong", "香港"),
    "Istanbul": ("Estambul", "Istambul", "伊斯坦布尔", "イスタンブール"),
    "Johannesburg": ("Johannesburgo", "约翰内斯堡", "ヨハネスブルグ"),
    "Lagos": ("拉各斯", "ラゴス"),
    "Lima": ("利马", "リマ"),
    "London": ("Londres", "Londra", "Londen", "伦敦", "ロンドン"),
    "Los Angeles": ("Los Ángeles", "洛杉矶", "ロサンゼルス"),
    "Madrid": ("马德里", "マドリード"),
    "Melbourne": ("墨尔本", "メルボルン"),
    "Mexico City": ("Mexiko-Stadt", "Ciudad de México", "Città del Messico",
                    "Cidade do México", "Mexico-Stad", "墨西哥城", "メキシコシティ"),
    "Miami": ("迈阿密", "マイアミ"),
    "Moscow": ("Moskau", "Moscou", "Moscú", "Mosca", "Moscovo", "Moskou", "莫斯科",
               "モスクワ"),
    "Mumbai": ("Bombay", "孟买", "ムンバイ"),
    "Nairobi": ("内罗毕", "ナイロビ"),
    "New York": ("Nueva York", "Nova Iorque", "纽约", "ニューヨーク"),
    "Oslo": ("奥斯陆", "オスロ"),
    "Paris": ("París", "Parigi", "Parijs", "巴黎", "パリ"),
    "Reykjavik": ("Reikiavik", "雷克雅未克", "レイキャビク"),
    "Rio de Janeiro": ("Río de Janeiro", "里约热内卢", "リオデジャネイロ"),
    "Rome": ("Rom", "Roma", "罗马", "ローマ"),
    "Santiago": ("圣地亚哥", "サンティアゴ"),
    "Seoul": ("Séoul", "Seúl", "Seul", "首尔", "ソウル"),
    "Singapore": ("Singapur", "Singapour", "Singapura", "新加坡", "シンガポール"),
    "Stockholm": ("Estocolmo", "Stoccolma", "斯德哥尔摩", "ストックホルム"),
    "Sydney": ("Sídney", "悉尼", "シドニー"),
    "Tokyo": ("Tokio", "Tóquio", "东京", "東京"),
    "Toronto": ("多伦多", "トロント"),
    "Vancouver": ("温哥华", "バンクーバー"),
    "Amsterdam": ("Ámsterdam", "阿姆斯特丹", "アムステルダム"),
}


def inflected(word: str) -> tuple[str, ...]:
    """A one-word adjective with the endings other languages add to it ("schwerwiegende",
    "bewölkter", "graves"); a phrase or a CJK word as it is."""
    if " " in word or not word.isascii() or len(word) < 4:
        return (word,)
    return (word, *(word + e for e in ("e", "en", "er", "es", "em", "s")))


def drug_spellings(name: str) -> list[str]:
    """A drug's name as other languages spell it: German drops a final -e ("Morphin"),
    French adds one ("simvastatine"), the Romance languages end it in -a or -o ("morfina",
    "prednisona", "paracetamolo") and write th, y as t, i ("claritromicina")."""
    words = name.split()
    if len(words) != 1 or len(name) < 6:
        return []
    n = name.lower()
    stem = n[:-1] if n.endswith("e") else n
    out = {stem, stem + "a", stem + "o", stem + "e"}
    out |= {x.replace("th", "t").replace("y", "i") for x in out}
    if "ph" in stem:
        out |= {x.replace("ph", "f") for x in out}
    if n.endswith("ine"):
        out.add(n[:-3] + "ina")
    if n.endswith("one"):
        out |= {n[:-3] + "ona", n[:-3] + "on"}
    out |= {x.replace("ll", "l").replace("ff", "f") for x in out}  # "penicilina"
    return sorted(x for x in out if x != n)


# a value's name in other languages (the occupations the knowledge domain draws from):
# "Maler", "peintre", "pintor", "画家" state "painter", and one of them said of another's
# subject is another value of the key
VALUE_FORMS: dict[str, tuple[str, ...]] = {
    "painter": ("Maler", "Malerin", "peintre", "pintor", "pintora", "pittore", "pittrice",
                "schilder", "画家", "художник", "화가"),
    "physician": ("Arzt", "Ärztin", "médecin", "médico", "médica", "medico",
                  "医生", "医師", "врач", "의사"),
    "poet": ("Dichter", "Dichterin", "poète", "poeta", "poetessa", "dichter", "诗人", "詩人",
             "поэт", "시인"),
    "composer": ("Komponist", "Komponistin", "compositeur", "compositor", "compositora",
                 "compositore", "componist", "作曲家", "композитор", "작곡가"),
    "architect": ("Architekt", "Architektin", "architecte", "arquitecto", "arquitecta",
                  "architetto", "arquiteto", "architect", "建筑师", "建築家", "архитектор",
                  "건축가"),
    "astronomer": ("Astronom", "Astronomin", "astronome", "astrónomo", "astronomo",
                   "astrônomo", "sterrenkundige", "天文学家", "天文学者", "астроном",
                   "천문학자"),
    "botanist": ("Botaniker", "Botanikerin", "botaniste", "botánico", "botanico",
                 "botânico", "botanicus", "植物学家", "植物学者", "ботаник", "식물학자"),
    "cartographer": ("Kartograf", "Kartograph", "cartographe", "cartógrafo", "cartografo",
                     "cartograaf", "制图师", "地图学家", "地図製作者", "картограф", "지도 제작자"),
    "engineer": ("Ingenieur", "Ingenieurin", "ingénieur", "ingeniero", "ingegnere",
                 "engenheiro", "工程师", "技師", "エンジニア", "инженер", "엔지니어"),
    "historian": ("Historiker", "Historikerin", "historien", "historiador", "storico",
                  "historicus", "历史学家", "歴史家", "историк", "역사가"),
    "merchant": ("Kaufmann", "Händler", "marchand", "négociant", "comerciante", "mercader",
                 "mercante", "koopman", "商人", "купец", "상인"),
    "shipbuilder": ("Schiffbauer", "constructeur naval", "constructor naval",
                    "costruttore navale", "construtor naval", "scheepsbouwer", "造船师",
                    "造船技師", "кораблестроитель", "조선공"),
}

