"""Words the seeded sites are made of: the storefront's category tree and attributes, people's
names, forum topics, project names. Plain data, no logic."""

from __future__ import annotations

# fmt: off

#: top category -> sub category -> leaf category -> product nouns (a 3-level tree, 12 x 3 x 3).
CATEGORIES: dict[str, dict[str, dict[str, tuple[str, ...]]]] = {
    "Beauty & Personal Care": {
        "Skin Care": {
            "Face Moisturizers": ("Face Cream", "Night Cream", "Day Lotion"),
            "Cleansers": ("Foaming Cleanser", "Cleansing Oil", "Micellar Water"),
            "Sunscreens": ("Sunscreen SPF 50", "Sun Stick", "Tinted Sunscreen"),
        },
        "Hair Care": {
            "Shampoo": ("Shampoo", "Dry Shampoo", "Clarifying Shampoo"),
            "Conditioner": ("Conditioner", "Leave-In Conditioner", "Hair Mask"),
            "Styling": ("Hair Gel", "Styling Cream", "Hair Spray"),
        },
        "Oral Care": {
            "Toothpaste": ("Toothpaste", "Whitening Toothpaste", "Kids Toothpaste"),
            "Toothbrushes": ("Electric Toothbrush", "Bamboo Toothbrush", "Soft Toothbrush"),
            "Mouth Guards": ("Mouth Guard", "Night Guard", "Sports Mouthguard"),
        },
    },
    "Sports & Outdoors": {
        "Exercise & Fitness": {
            "Yoga": ("Yoga Mat", "Yoga Block", "Yoga Strap"),
            "Strength Training": ("Dumbbell Set", "Kettlebell", "Resistance Band"),
            "Cardio": ("Jump Rope", "Exercise Bike", "Stepper"),
        },
        "Outdoor Recreation": {
            "Camping": ("Camping Tent", "Sleeping Bag", "Camp Stove"),
            "Hiking": ("Hiking Backpack", "Trekking Poles", "Hydration Pack"),
            "Fishing": ("Fishing Rod", "Tackle Box", "Fishing Reel"),
        },
        "Team Sports": {
            "Soccer": ("Soccer Ball", "Shin Guards", "Goalkeeper Gloves"),
            "Basketball": ("Basketball", "Basketball Hoop", "Ball Pump"),
            "Baseball": ("Baseball Glove", "Baseball Bat", "Batting Helmet"),
        },
    },
    "Clothing, Shoes & Jewelry": {
        "Women": {
            "Tops": ("Tank Top", "Blouse", "Hoodie"),
            "Dresses": ("Maxi Dress", "Wrap Dress", "Sundress"),
            "Shoes": ("Running Shoe", "Ankle Boot", "Sandal"),
        },
        "Men": {
            "Shirts": ("T-Shirt", "Oxford Shirt", "Polo Shirt"),
            "Pants": ("Chino Pants", "Jogger Pants", "Cargo Shorts"),
            "Jackets": ("Rain Jacket", "Fleece Jacket", "Down Vest"),
        },
        "Jewelry": {
            "Necklaces": ("Pendant Necklace", "Chain Necklace", "Choker"),
            "Rings": ("Band Ring", "Stacking Ring", "Signet Ring"),
            "Earrings": ("Stud Earrings", "Hoop Earrings", "Drop Earrings"),
        },
    },
    "Home & Kitchen": {
        "Kitchen & Dining": {
            "Cookware": ("Frying Pan", "Saucepan", "Dutch Oven"),
            "Cutlery": ("Chef Knife", "Knife Block Set", "Paring Knife"),
            "Coffee & Tea": ("French Press", "Pour-Over Kettle", "Tea Infuser"),
        },
        "Bedding": {
            "Sheets": ("Sheet Set", "Fitted Sheet", "Pillowcase Pair"),
            "Comforters": ("Comforter", "Duvet Insert", "Quilt"),
            "Pillows": ("Bed Pillow", "Memory Foam Pillow", "Body Pillow"),
        },
        "Home Decor": {
            "Candles": ("Scented Candle", "Pillar Candle", "Tea Lights"),
            "Wall Art": ("Canvas Print", "Framed Poster", "Wall Clock"),
            "Rugs": ("Area Rug", "Runner Rug", "Doormat"),
        },
    },
    "Electronics": {
        "Computers & Accessories": {
            "Keyboards": ("Mechanical Keyboard", "Wireless Keyboard", "Keyboard Cover"),
            "Mice": ("Wireless Mouse", "Gaming Mouse", "Trackball"),
            "Storage": ("USB Flash Drive", "Portable SSD", "microSD Card"),
        },
        "Headphones": {
            "Over-Ear": ("Over-Ear Headphones", "Studio Headphones", "Noise Cancelling Headphones"),
            "Earbuds": ("Wireless Earbuds", "Sport Earbuds", "Wired Earbuds"),
            "Accessories": ("Headphone Stand", "Ear Pads", "Headphone Case"),
        },
        "Camera & Photo": {
            "Tripods": ("Travel Tripod", "Tabletop Tripod", "Monopod"),
            "Lenses": ("Prime Lens", "Zoom Lens", "Lens Filter"),
            "Camera Bags": ("Camera Backpack", "Camera Sling", "Lens Pouch"),
        },
    },
    "Grocery & Gourmet Food": {
        "Beverages": {
            "Tea": ("Green Tea", "Black Tea", "Herbal Tea"),
            "Coffee": ("Ground Coffee", "Whole Bean Coffee", "Coffee Pods"),
            "Juices": ("Orange Juice", "Apple Juice", "Coconut Water"),
        },
        "Snacks": {
            "Chips": ("Potato Chips", "Tortilla Chips", "Veggie Chips"),
            "Nuts": ("Mixed Nuts", "Roasted Almonds", "Cashews"),
            "Cookies": ("Chocolate Chip Cookies", "Shortbread", "Oatmeal Cookies"),
        },
        "Pantry Staples": {
            "Pasta": ("Spaghetti", "Penne", "Fusilli"),
            "Sauces": ("Pasta Sauce", "Hot Sauce", "Pesto"),
            "Spices": ("Sea Salt", "Black Pepper", "Curry Powder"),
        },
    },
    "Office Products": {
        "Writing Supplies": {
            "Pens": ("Gel Pen Set", "Ballpoint Pens", "Fountain Pen"),
            "Pencils": ("Mechanical Pencil", "Colored Pencils", "Graphite Pencils"),
            "Markers": ("Highlighters", "Dry Erase Markers", "Permanent Markers"),
        },
        "Paper": {
            "Notebooks": ("Spiral Notebook", "Dotted Journal", "Composition Book"),
            "Sticky Notes": ("Sticky Notes", "Page Flags", "Index Cards"),
            "Printer Paper": ("Copy Paper", "Cardstock", "Photo Paper"),
        },
        "Desk Organization": {
            "Desk Organizers": ("Desk Organizer", "Pen Cup", "Drawer Tray"),
            "Filing": ("File Folders", "Expanding File", "Binder"),
            "Desk Accessories": ("Desk Lamp", "Monitor Stand", "Mouse Pad"),
        },
    },
    "Tools & Home Improvement": {
        "Power Tools": {
            "Drills": ("Cordless Drill", "Hammer Drill", "Drill Bit Set"),
            "Saws": ("Circular Saw", "Jigsaw", "Oscillating Tool"),
            "Sanders": ("Orbital Sander", "Detail Sander", "Sanding Discs"),
        },
        "Hand Tools": {
            "Screwdrivers": ("Screwdriver Set", "Precision Screwdrivers", "Ratchet Screwdriver"),
            "Wrenches": ("Adjustable Wrench", "Socket Set", "Hex Key Set"),
            "Measuring": ("Tape Measure", "Laser Level", "Stud Finder"),
        },
        "Lighting": {
            "Light Bulbs": ("LED Bulb", "Smart Bulb", "Edison Bulb"),
            "Flashlights": ("LED Flashlight", "Headlamp", "Lantern"),
            "Outdoor Lighting": ("Solar Path Light", "Motion Sensor Light", "String Lights"),
        },
    },
    "Health & Household": {
        "Vitamins": {
            "Multivitamins": ("Multivitamin", "Gummy Vitamins", "Prenatal Vitamin"),
            "Supplements": ("Fish Oil", "Vitamin D3", "Magnesium"),
            "Protein": ("Whey Protein", "Plant Protein", "Protein Bars"),
        },
        "Household Supplies": {
            "Cleaning": ("All-Purpose Cleaner", "Glass Cleaner", "Scrub Sponges"),
            "Laundry": ("Laundry Detergent", "Dryer Sheets", "Stain Remover"),
            "Paper Goods": ("Paper Towels", "Facial Tissues", "Toilet Paper"),
        },
        "Medical Supplies": {
            "First Aid": ("First Aid Kit", "Bandages", "Cold Pack"),
            "Monitors": ("Blood Pressure Monitor", "Thermometer", "Pulse Oximeter"),
            "Braces": ("Knee Brace", "Wrist Brace", "Back Support"),
        },
    },
    "Patio, Lawn & Garden": {
        "Gardening": {
            "Planters": ("Ceramic Planter", "Raised Garden Bed", "Hanging Basket"),
            "Seeds": ("Tomato Seeds", "Herb Seed Kit", "Wildflower Seeds"),
            "Garden Tools": ("Pruning Shears", "Garden Trowel", "Garden Hose"),
        },
        "Outdoor Furniture": {
            "Chairs": ("Adirondack Chair", "Folding Chair", "Hammock"),
            "Tables": ("Patio Table", "Side Table", "Bistro Set"),
            "Umbrellas": ("Patio Umbrella", "Umbrella Base", "Sun Shade"),
        },
        "Grills": {
            "Gas Grills": ("Gas Grill", "Grill Cover", "Propane Tank Gauge"),
            "Charcoal Grills": ("Kettle Grill", "Chimney Starter", "Charcoal Briquettes"),
            "Grilling Tools": ("Grill Brush", "BBQ Tongs", "Meat Thermometer"),
        },
    },
    "Cell Phones & Accessories": {
        "Cases": {
            "Phone Cases": ("Phone Case", "Wallet Case", "Rugged Case"),
            "Screen Protectors": ("Screen Protector", "Privacy Screen", "Camera Lens Protector"),
            "Skins": ("Phone Skin", "Grip Sticker", "Phone Ring"),
        },
        "Chargers": {
            "Wall Chargers": ("USB-C Charger", "Fast Charger", "Charging Station"),
            "Cables": ("Lightning Cable", "USB-C Cable", "Braided Cable"),
            "Power Banks": ("Power Bank", "Solar Charger", "Magnetic Battery"),
        },
        "Mounts": {
            "Car Mounts": ("Car Phone Mount", "Vent Mount", "Dashboard Mount"),
            "Stands": ("Phone Stand", "Tablet Stand", "Foldable Stand"),
            "Selfie Sticks": ("Selfie Stick", "Tripod Selfie Stick", "Gimbal"),
        },
    },
    "Video Games": {
        "Consoles": {
            "Controllers": ("Wireless Controller", "Pro Controller", "Controller Grip"),
            "Headsets": ("Gaming Headset", "Chat Headset", "Headset Stand"),
            "Storage": ("Game Case", "Console Bag", "Memory Card"),
        },
        "PC Gaming": {
            "Gaming Keyboards": ("RGB Keyboard", "Compact Keyboard", "Keycap Set"),
            "Gaming Mice": ("Gaming Mouse", "Mouse Bungee", "Large Mouse Pad"),
            "Gaming Chairs": ("Gaming Chair", "Seat Cushion", "Footrest"),
        },
        "Retro Gaming": {
            "Retro Consoles": ("Retro Console", "Handheld Console", "Arcade Stick"),
            "Cartridges": ("Cartridge Case", "Cartridge Cleaner", "Save Battery"),
            "Cables": ("HDMI Adapter", "AV Cable", "Extension Cable"),
        },
    },
}

BRANDS = (
    "Northwind", "Acme", "Bluebird", "Everpure", "Kestrel", "Lumen", "Maple & Co", "Nimbus",
    "Oakridge", "Pinecrest", "Quill", "Redwood", "Solstice", "Terra", "Umbra", "Vireo",
    "Willow", "Zenith", "Harbor", "Juniper", "Cobalt", "Driftwood", "Ember", "Fable",
)
ADJECTIVES = (
    "Classic", "Premium", "Organic", "Compact", "Deluxe", "Ultra", "Eco", "Pro", "Essential",
    "Everyday", "Lightweight", "Heavy Duty", "Travel", "Smart", "Natural", "Vintage",
)
COLORS = ("Black", "White", "Gray", "Blue", "Red", "Green", "Beige", "Pink", "Navy", "Brown")
SIZES = ("XS", "S", "M", "L", "XL")
MATERIALS = ("Cotton", "Steel", "Bamboo", "Plastic", "Glass", "Leather", "Wool", "Aluminum")
#: Top categories whose products come in sizes (Magento's configurable products).
SIZED = ("Clothing, Shoes & Jewelry",)

REVIEW_PHRASES = (
    "fast shipping", "great value", "poor packaging", "smells amazing", "broke after a week",
    "fits perfectly", "too small", "excellent quality", "would buy again", "color faded",
    "easy to use", "not as described", "customer service", "battery life", "comfortable",
    "sturdy", "cheap material", "returned it", "gift for my wife", "exceeded expectations",
)
REVIEW_OPENERS = (
    "Honestly", "Overall", "In short", "To be fair", "After a month", "First impressions",
)

FIRST = (
    "Olivia", "Liam", "Ava", "Noah", "Mia", "Ethan", "Sofia", "Lucas", "Grace", "Mason", "Chloe",
    "Logan", "Zoe", "Caleb", "Nora", "Owen", "Ruby", "Isaac", "Lily", "Jack", "Emily", "Daniel",
    "Hannah", "Samuel", "Layla", "Henry", "Aria", "Leo", "Ella", "Julian", "Maya", "Adam",
    "Clara", "Ryan", "Alice", "Victor", "Jane", "Bob", "Sarah", "Alex",
)
LAST = (
    "Smith", "Garcia", "Chen", "Patel", "Kim", "Nguyen", "Brown", "Rossi", "Silva", "Khan",
    "Johnson", "Miller", "Lee", "Walker", "Hall", "Young", "Lopez", "Wright", "Scott", "Green",
    "Baker", "Adams", "Nelson", "Hill", "Campbell", "Mitchell", "Roberts", "Carter",
)
CITIES = (
    ("Pittsburgh", "PA"), ("Boston", "MA"), ("Austin", "TX"), ("Seattle", "WA"),
    ("Denver", "CO"), ("Chicago", "IL"), ("Miami", "FL"), ("Portland", "OR"),
    ("Phoenix", "AZ"), ("Atlanta", "GA"), ("Columbus", "OH"), ("Madison", "WI"),
)
STREETS = ("Main St", "Oak Ave", "Pine Rd", "Maple Dr", "Cedar Ln", "Elm St", "Lake Blvd")

#: Forum name stems; forums are these, and these with a suffix, to reach the wanted count.
FORUM_STEMS = (
    "books", "gaming", "movies", "science", "cooking", "travel", "music", "diy", "space",
    "history", "technology", "photography", "fitness", "gardening", "personalfinance", "art",
    "programming", "news", "worldnews", "sports", "nba", "soccer", "running", "cycling",
    "camping", "pets", "aww", "food", "baking", "coffee", "tea", "cars", "bikes", "boardgames",
    "chess", "anime", "television", "podcasts", "writing", "poetry", "philosophy", "askscience",
    "explainlikeimfive", "todayilearned", "lifeprotips", "jokes", "mildlyinteresting",
    "dataisbeautiful", "earthporn", "architecture", "design", "linux", "python", "javascript",
    "machinelearning", "homeimprovement", "woodworking", "knitting", "crafts", "languages",
)
FORUM_SUFFIXES = ("", "_talk", "_club", "_help")
TOPICS = (
    "a beginner question", "my weekend project", "an unpopular opinion", "a hidden gem",
    "the best advice I got", "a question for experts", "what I learned this year",
    "a small victory", "a frustrating problem", "a recommendation thread", "a long read",
    "my first attempt", "a comparison", "a quick tip", "an old photo", "a discussion",
)
COMMENT_LINES = (
    "Interesting point.", "I had the same experience.", "Thanks for sharing!",
    "Could you post more details?", "Strongly disagree.", "This is the way.",
    "Great write-up.", "Has anyone tried this?", "Underrated post.", "Saved for later.",
)
USER_WORDS = (
    "quiet", "pixel", "fern", "tide", "ramen", "lunar", "amber", "cosmic", "rusty", "velvet",
    "neon", "paper", "stone", "river", "maple", "crimson", "silent", "happy", "brave", "lazy",
)
USER_NOUNS = (
    "owl", "pilot", "gully", "water", "rider", "fox", "otter", "tiger", "panda", "wolf",
    "comet", "sparrow", "badger", "lynx", "heron", "moose", "falcon", "koala", "gecko", "raven",
)

PROJECT_WORDS = (
    "a11y", "syntax", "highlighting", "dotfiles", "cloud", "butt", "design", "tools",
    "scheduler", "metrics", "parser", "router", "cache", "queue", "logger", "config", "auth",
    "client", "server", "cli", "docs", "theme", "engine", "sdk", "bot", "tracker", "editor",
    "viewer", "sync", "api", "game", "map", "chart", "search", "mail", "chat", "notes", "shop",
)
LANGUAGES = (("Python", "py"), ("JavaScript", "js"), ("Go", "go"), ("Rust", "rs"), ("Ruby", "rb"))
LABELS = (
    "bug", "enhancement", "documentation", "question", "accessibility", "help wanted",
    "good first issue", "performance", "security", "wontfix",
)
ISSUE_WORDS = (
    "crash on startup", "typo in README", "dark theme contrast", "add CI job", "slow build",
    "support for Windows", "broken link", "update dependencies", "keyboard navigation",
    "flaky test", "missing license", "config option", "memory leak", "unicode handling",
    "error message unclear", "add dark mode", "improve logging", "timezone bug",
)
ROLES = ("Guest", "Reporter", "Developer", "Maintainer", "Owner")

#: What products are for, by leaf category (a noun's own entry wins): ``("eases", needs)``
#: for ailments and discomforts, ``("for", needs)`` for uses. Product descriptions say two
#: of them, so a need stated in words leads to the products (template 151: jaw bruxism ->
#: a mouth guard).
USES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Face Moisturizers": ("eases", ("dry skin", "flaky patches", "skin tightness after washing")),
    "Cleansers": ("for", ("removing makeup", "oily skin", "clogged pores")),
    "Sunscreens": ("for", ("sunburn protection", "long days at the beach", "skiing in bright sun")),
    "Shampoo": ("eases", ("an itchy scalp", "dandruff", "greasy roots")),
    "Conditioner": ("eases", ("frizzy hair", "split ends", "tangles after swimming")),
    "Styling": ("for", ("holding a hairstyle all day", "humid weather", "adding volume")),
    "Toothpaste": ("eases", ("sensitive teeth", "bad breath", "plaque build-up")),
    "Toothbrushes": ("eases", ("bleeding gums", "plaque build-up", "stained teeth")),
    "Mouth Guard": ("eases", ("jaw bruxism", "teeth grinding at night", "jaw clenching")),
    "Night Guard": ("eases", ("jaw bruxism", "morning jaw soreness", "teeth grinding at night")),
    "Mouth Guards": ("for", ("protecting teeth", "dental care at night", "contact sports")),
    "Game Case": ("for", ("protecting game discs", "travel", "organising a collection")),
    "Console Bag": ("for", ("taking a console to a friend's", "travel", "protecting a console")),
    "Sports Mouthguard": ("for", ("contact sports", "boxing and martial arts", "hockey games")),
    "Yoga": ("eases", ("stiff hips", "lower back tension", "poor balance")),
    "Strength Training": ("for", ("building muscle at home", "rehab exercises", "toning arms")),
    "Cardio": ("for", ("burning calories indoors", "rainy-day workouts", "endurance training")),
    "Camping": ("for", ("overnight camping trips", "backyard campouts", "festival weekends")),
    "Hiking": ("eases", ("knee strain on descents", "dehydration on long trails", "heavy loads")),
    "Fishing": ("for", ("lake fishing", "fly fishing trips", "teaching kids to fish")),
    "Soccer": ("for", ("weekend league games", "goalkeeping drills", "shin protection")),
    "Basketball": ("for", ("driveway pickup games", "shooting practice", "youth leagues")),
    "Baseball": ("for", ("little league season", "batting practice", "catching drills")),
    "Tops": ("for", ("layering in spring", "hot summer days", "casual Fridays")),
    "Dresses": ("for", ("summer weddings", "beach vacations", "office parties")),
    "Shoes": ("eases", ("sore feet after long walks", "heel pain", "blisters")),
    "Shirts": ("for", ("business casual days", "summer barbecues", "travel")),
    "Pants": ("for", ("weekend hikes", "lounging at home", "commuting by bike")),
    "Jackets": ("for", ("rainy commutes", "chilly mornings", "windy hikes")),
    "Necklaces": ("for", ("anniversary gifts", "everyday layering", "evening outfits")),
    "Rings": ("for", ("stacking", "promise rings", "birthday gifts")),
    "Earrings": ("eases", ("sensitive ears", "metal allergies", "heavy-earring fatigue")),
    "Cookware": ("for", ("searing steaks", "one-pot dinners", "induction cooktops")),
    "Cutlery": ("for", ("meal prep", "slicing bread", "precise vegetable cuts")),
    "Coffee & Tea": ("for", ("slow morning coffee", "loose-leaf tea", "office brewing")),
    "Sheets": ("eases", ("night sweats", "sensitive skin", "restless sleep in summer")),
    "Comforters": ("eases", ("cold nights", "dust allergies", "waking up too hot")),
    "Pillows": ("eases", ("neck pain", "snoring", "shoulder pain from side sleeping")),
    "Candles": ("for", ("relaxing baths", "dinner parties", "masking pet odors")),
    "Wall Art": ("for", ("bare hallways", "nursery decor", "housewarming gifts")),
    "Rugs": ("eases", ("cold floors", "echoing rooms", "slippery hallways")),
    "Keyboards": ("eases", ("wrist strain from typing", "loud typing noise", "cluttered desks")),
    "Mice": ("eases", ("wrist pain", "carpal tunnel strain", "cable clutter")),
    "Storage": ("for", ("photo backups", "moving files between computers", "dashcam footage")),
    "Over-Ear": ("eases", ("noisy open offices", "airplane engine noise", "ear fatigue")),
    "Earbuds": ("for", ("running", "phone calls on the go", "gym workouts")),
    "Accessories": ("for", ("tidy desks", "replacing worn ear pads", "travel")),
    "Tripods": ("for", ("long exposures", "travel photography", "video calls")),
    "Lenses": ("for", ("portrait photography", "wildlife shots", "landscape photos")),
    "Camera Bags": ("for", ("photo walks", "carrying extra lenses", "airline carry-on")),
    "Tea": ("eases", ("trouble falling asleep", "an upset stomach", "afternoon slumps")),
    "Coffee": ("for", ("early mornings", "cold brew", "espresso at home")),
    "Juices": ("eases", ("dehydration after workouts", "hangovers", "low energy")),
    "Chips": ("for", ("game nights", "lunch boxes", "road trips")),
    "Nuts": ("for", ("high-protein snacking", "trail mix", "keto diets")),
    "Cookies": ("for", ("school lunches", "holiday gifts", "afternoon tea")),
    "Pasta": ("for", ("weeknight dinners", "meal prep", "pasta salads")),
    "Sauces": ("for", ("quick dinners", "marinades", "dipping")),
    "Spices": ("for", ("home curries", "seasoning roasts", "low-salt cooking")),
    "Pens": ("for", ("journaling", "signing documents", "calligraphy practice")),
    "Pencils": ("for", ("sketching", "adult coloring books", "exam days")),
    "Markers": ("for", ("studying", "whiteboard meetings", "labeling boxes")),
    "Notebooks": ("for", ("bullet journaling", "lecture notes", "meeting minutes")),
    "Sticky Notes": ("for", ("reminders", "marking pages", "brainstorming sessions")),
    "Printer Paper": ("for", ("home offices", "photo prints", "greeting cards")),
    "Desk Organizers": ("for", ("cluttered desks", "small home offices", "craft supplies")),
    "Filing": ("for", ("tax documents", "school papers", "receipts")),
    "Desk Accessories": ("eases", ("eye strain", "neck strain at the monitor", "wrist fatigue")),
    "Drills": ("for", ("hanging shelves", "assembling furniture", "deck repairs")),
    "Saws": ("for", ("cutting plywood", "trimming door frames", "DIY projects")),
    "Sanders": ("for", ("refinishing furniture", "smoothing drywall", "paint prep")),
    "Screwdrivers": ("for", ("electronics repair", "assembling furniture", "glasses repair")),
    "Wrenches": ("for", ("bike repairs", "plumbing fixes", "car maintenance")),
    "Measuring": ("for", ("hanging pictures straight", "room layouts", "finding studs")),
    "Light Bulbs": ("eases", ("high electric bills", "harsh glare", "dim reading corners")),
    "Flashlights": ("for", ("power outages", "night hikes", "car emergency kits")),
    "Outdoor Lighting": ("for", ("dark garden paths", "porch security", "patio parties")),
    "Multivitamins": ("eases", ("tiredness", "gaps in a picky diet", "low energy")),
    "Supplements": ("eases", ("muscle cramps", "dry eyes", "winter blues")),
    "Protein": ("for", ("muscle recovery", "post-workout shakes", "busy mornings")),
    "Cleaning": ("for", ("greasy stovetops", "streaky windows", "bathroom grime")),
    "Laundry": ("eases", ("static cling", "stubborn stains", "itchy detergent rashes")),
    "Paper Goods": ("for", ("kitchen spills", "cold season", "stocking up")),
    "First Aid": ("eases", ("minor cuts", "sprained ankles", "swelling after a fall")),
    "Monitors": ("for", ("tracking blood pressure", "checking a fever", "monitoring oxygen")),
    "Braces": ("eases", ("knee pain", "carpal tunnel", "lower back pain")),
    "Planters": ("for", ("balcony herbs", "indoor plants", "small-space gardening")),
    "Seeds": ("for", ("first vegetable gardens", "pollinator gardens", "kids' projects")),
    "Garden Tools": ("for", ("pruning roses", "planting bulbs", "watering beds")),
    "Chairs": ("for", ("lazy afternoons", "camping", "deck seating")),
    "Tables": ("for", ("outdoor dining", "small balconies", "patio parties")),
    "Umbrellas": ("eases", ("harsh midday sun", "hot patios", "sun glare on the deck")),
    "Gas Grills": ("for", ("backyard cookouts", "grilling burgers", "weeknight grilling")),
    "Charcoal Grills": ("for", ("smoky barbecue", "tailgating", "low-and-slow ribs")),
    "Grilling Tools": ("for", ("flipping burgers", "cleaning grates", "checking doneness")),
    "Phone Cases": ("for", ("drop protection", "carrying cards", "outdoor work")),
    "Screen Protectors": ("eases", ("scratched screens", "nosy neighbours on the train", "glare")),
    "Skins": ("for", ("a better grip", "one-handed use", "personalising a phone")),
    "Wall Chargers": ("eases", ("slow charging", "too few outlets", "travel adapter clutter")),
    "Cables": ("eases", ("frayed cables", "short cords", "slow data transfers")),
    "Power Banks": ("eases", ("dead batteries on trips", "low battery anxiety", "camping")),
    "Car Mounts": ("for", ("hands-free navigation", "ride-share drivers", "road trips")),
    "Stands": ("eases", ("neck strain from looking down", "video calls", "reading recipes")),
    "Selfie Sticks": ("for", ("group photos", "travel vlogs", "steady video")),
    "Controllers": ("eases", ("hand cramps in long sessions", "drifting thumbsticks", "lag")),
    "Headsets": ("for", ("online multiplayer", "late-night gaming", "streaming")),
    "Gaming Keyboards": ("for", ("competitive gaming", "typing at night", "small desks")),
    "Gaming Mice": ("eases", ("wrist strain", "cable drag", "slippery grips")),
    "Gaming Chairs": ("eases", ("lower back pain", "poor posture", "long sitting sessions")),
    "Retro Consoles": ("for", ("classic game nights", "nostalgia", "kids' first games")),
    "Cartridges": ("for", ("collecting games", "cleaning old cartridges", "lost save files")),
}
#: How a description says a product's uses: relief (``eases``), or purpose (``for``).
USE_SHAPES = {
    "eases": (
        "Helps alleviate {a} and {b}.",
        "Eases {a}; customers also use it for {b}.",
        "A simple way to relieve {a} and {b}.",
        "Recommended for {a} and {b}.",
    ),
    "for": (
        "Great for {a} and {b}.",
        "Made for {a}; customers also use it for {b}.",
        "Ideal for {a} and {b}.",
        "A favourite for {a} and {b}.",
    ),
}
