"""Static ingredients of the retail catalogue: categories, product types with price ranges,
invented brands and model variants. The catalogue itself is drawn from these once, from a
fixed seed, in `retail.py`."""

from __future__ import annotations

# category -> [(product type, min price, max price, max units per order)]
PRODUCT_TYPES: dict[str, list[tuple[str, float, float, int]]] = {
    "kitchen": [
        ("electric kettle", 19.0, 69.0, 4),
        ("toaster", 24.0, 89.0, 3),
        ("blender", 34.0, 159.0, 2),
        ("coffee grinder", 19.0, 99.0, 3),
        ("chef's knife", 14.0, 129.0, 5),
        ("frying pan", 17.0, 79.0, 5),
    ],
    "electronics": [
        ("wireless earbuds", 24.0, 189.0, 3),
        ("bluetooth speaker", 19.0, 159.0, 3),
        ("usb-c charger", 9.0, 49.0, 10),
        ("computer monitor", 149.0, 599.0, 2),
        ("power bank", 15.0, 79.0, 5),
        ("webcam", 24.0, 129.0, 3),
    ],
    "home": [
        ("desk lamp", 14.0, 89.0, 4),
        ("throw blanket", 19.0, 99.0, 6),
        ("air purifier", 69.0, 349.0, 2),
        ("wall clock", 12.0, 79.0, 4),
        ("bath towel set", 19.0, 89.0, 6),
    ],
    "outdoor": [
        ("camping tent", 59.0, 449.0, 2),
        ("sleeping bag", 29.0, 199.0, 4),
        ("hiking backpack", 34.0, 219.0, 3),
        ("water bottle", 8.0, 45.0, 10),
        ("headlamp", 9.0, 69.0, 6),
    ],
    "office": [
        ("office chair", 79.0, 499.0, 2),
        ("notebook", 3.0, 24.0, 20),
        ("fountain pen", 12.0, 149.0, 5),
        ("desk organizer", 9.0, 49.0, 6),
        ("paper shredder", 39.0, 229.0, 2),
    ],
    "sports": [
        ("yoga mat", 14.0, 89.0, 5),
        ("dumbbell set", 29.0, 249.0, 2),
        ("running shoes", 49.0, 179.0, 3),
        ("tennis racket", 24.0, 229.0, 3),
        ("jump rope", 6.0, 29.0, 10),
    ],
    "toys": [
        ("building blocks", 14.0, 119.0, 5),
        ("jigsaw puzzle", 9.0, 39.0, 8),
        ("remote control car", 24.0, 149.0, 3),
        ("plush bear", 9.0, 49.0, 6),
        ("board game", 14.0, 69.0, 5),
    ],
    "beauty": [
        ("hair dryer", 19.0, 249.0, 3),
        ("electric toothbrush", 24.0, 199.0, 4),
        ("face moisturizer", 7.0, 59.0, 8),
        ("shampoo", 4.0, 29.0, 12),
    ],
    "garden": [
        ("garden hose", 19.0, 89.0, 4),
        ("pruning shears", 9.0, 59.0, 5),
        ("watering can", 8.0, 39.0, 6),
        ("plant pot", 5.0, 49.0, 12),
    ],
    "pet": [
        ("dog bed", 24.0, 149.0, 3),
        ("cat scratching post", 19.0, 99.0, 3),
        ("pet water fountain", 19.0, 69.0, 4),
        ("dog leash", 7.0, 39.0, 8),
    ],
}

BRANDS: list[str] = [
    "Acme", "Zenith", "Northwind", "Lumora", "Kestrel", "Brightline", "Hearthstone",
    "Vantor", "Orbix", "Pinecrest", "Solenne", "Tidewell", "Marlow", "Quillon", "Fennic",
    "Ardent",
]

VARIANTS: list[str] = ["Classic", "Pro", "Compact", "Deluxe", "Eco", "Ultra", "Mini", "Plus"]

# Words a search query may contain that say nothing about the product.
STOPWORDS: frozenset[str] = frozenset({
    "a", "an", "the", "for", "with", "of", "and", "or", "to", "in", "on", "me", "my", "i",
    "some", "any", "one", "best", "good", "cheap", "cheapest", "find", "show", "buy",
    "order", "need", "want", "please",
})
