"""ALFWorld's vocabulary: room types, receptacle and object classes, affordances, goals.

These are facts about ALFRED / ALFWorld (class names as THOR spells them, which receptacle
class can contain which object class, which classes are openable, heatable, ...), written out
as plain tables for the native engine and the task generator.
"""

from __future__ import annotations

ROOMS = ("Kitchen", "LivingRoom", "Bedroom", "Bathroom")

#: ALFRED's floorplan numbers per room type (kitchens 1-30, living rooms 201-230, ...).
SCENE_BASE = {"Kitchen": 0, "LivingRoom": 200, "Bedroom": 300, "Bathroom": 400}

TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)

#: Short names used in AgentGym's mapping files and in our task ids.
TASK_SHORT = {
    "pick_and_place_simple": "simple",
    "look_at_obj_in_light": "light",
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
    "pick_two_obj_and_place": "two",
}

#: Room types where a task type is valid (ALFRED's ``GOALS_VALID``).
GOALS_VALID = {
    "pick_and_place_simple": ("Kitchen", "LivingRoom", "Bedroom", "Bathroom"),
    "pick_two_obj_and_place": ("Kitchen", "LivingRoom", "Bedroom", "Bathroom"),
    "look_at_obj_in_light": ("LivingRoom", "Bedroom"),
    "pick_clean_then_place_in_recep": ("Kitchen", "Bathroom"),
    "pick_heat_then_place_in_recep": ("Kitchen",),
    "pick_cool_then_place_in_recep": ("Kitchen",),
}

#: The two goal templates per task type (``{obj}``, ``{recep}``, ``{toggle}`` lowercased).
TEMPLATES = {
    "pick_and_place_simple": ("put a {obj} in {recep}", "put some {obj} on {recep}"),
    "look_at_obj_in_light": (
        "look at {obj} under the {toggle}",
        "examine the {obj} with the {toggle}",
    ),
    "pick_clean_then_place_in_recep": (
        "put a clean {obj} in {recep}",
        "clean some {obj} and put it in {recep}",
    ),
    "pick_heat_then_place_in_recep": (
        "put a hot {obj} in {recep}",
        "heat some {obj} and put it in {recep}",
    ),
    "pick_cool_then_place_in_recep": (
        "put a cool {obj} in {recep}",
        "cool some {obj} and put it in {recep}",
    ),
    "pick_two_obj_and_place": (
        "put two {obj} in {recep}",
        "find two {obj} and put them in {recep}",
    ),
}

OPENABLE = frozenset({"Fridge", "Cabinet", "Microwave", "Drawer", "Safe", "Box"})
HEATABLE = frozenset({"Apple", "Bread", "Cup", "Egg", "Mug", "Plate", "Potato", "Tomato"})
COOLABLE = frozenset(
    {
        "Apple",
        "Bowl",
        "Bread",
        "Cup",
        "Egg",
        "Lettuce",
        "Mug",
        "Pan",
        "Plate",
        "Pot",
        "Potato",
        "Tomato",
        "WineBottle",
    }
)
CLEANABLE = frozenset(
    {
        "Apple",
        "Bowl",
        "ButterKnife",
        "Cloth",
        "Cup",
        "DishSponge",
        "Egg",
        "Fork",
        "Kettle",
        "Knife",
        "Ladle",
        "Lettuce",
        "Mug",
        "Pan",
        "Plate",
        "Pot",
        "Potato",
        "SoapBar",
        "Spatula",
        "Spoon",
        "Tomato",
    }
)
SLICEABLE = frozenset({"Apple", "Bread", "Egg", "Lettuce", "Potato", "Tomato"})
TOGGLEABLE = frozenset({"DeskLamp", "FloorLamp"})
#: Movable receptacles: objects that ALFWorld marks ``isReceptacleObject``.
RECEPTACLE_OBJECTS = frozenset({"Bowl", "Cup", "Mug", "Pan", "Plate", "Pot"})
#: Objects that slice others when held.
SHARP = frozenset({"Knife", "ButterKnife"})

_TABLE = (
    "AlarmClock Apple BaseballBat BasketBall Book Bowl Bread ButterKnife CD Candle CellPhone Cloth CreditCard Cup "
    "DishSponge Egg Fork Glassbottle HandTowel Kettle KeyChain Knife Ladle Laptop Lettuce Mug Newspaper Pan "
    "PaperTowel Pen Pencil PepperShaker Plate Pot Potato RemoteControl SaltShaker SoapBar SoapBottle Spatula Spoon "
    "SprayBottle Statue TennisRacket TissueBox ToiletPaper Tomato Vase Watch WateringCan WineBottle"
)

#: Which object classes a receptacle class can contain (ALFRED's ``VAL_RECEPTACLE_OBJECTS``,
#: restricted to the receptacle and object classes the generator uses).
CAN_CONTAIN: dict[str, frozenset[str]] = {
    k: frozenset(v.split())
    for k, v in {
        "ArmChair": "BasketBall Book CellPhone Cloth CreditCard KeyChain Laptop Newspaper Pillow RemoteControl",
        "BathtubBasin": "Cloth DishSponge HandTowel SoapBar",
        "Bed": "BaseballBat BasketBall Book CellPhone Laptop Newspaper Pillow TennisRacket",
        "Box": "AlarmClock Book CD Candle CellPhone Cloth CreditCard DishSponge Glassbottle KeyChain Mug PaperTowel "
        "Pen Pencil RemoteControl Statue TissueBox Vase Watch",
        "Cabinet": "Book Bowl CD Candle Cloth Cup DishSponge Glassbottle HandTowel Kettle Ladle Mug Newspaper Pan "
        "PepperShaker Plate Plunger Pot SaltShaker SoapBar SoapBottle SprayBottle TissueBox ToiletPaper Vase "
        "WateringCan WineBottle",
        "Cart": "Candle Cloth DishSponge HandTowel Mug PaperTowel Plunger SoapBar SoapBottle SprayBottle Statue "
        "TissueBox ToiletPaper Vase",
        "CoffeeMachine": "Mug",
        "CoffeeTable": _TABLE,
        "CounterTop": _TABLE,
        "Desk": "AlarmClock BasketBall Book Bowl CD Candle CellPhone Cloth CreditCard Cup Glassbottle KeyChain Laptop "
        "Mug Newspaper Pen Pencil Plate RemoteControl SoapBottle SprayBottle Statue TennisRacket TissueBox "
        "ToiletPaper Vase Watch WateringCan WineBottle",
        "DiningTable": _TABLE,
        "Drawer": "Book ButterKnife CD Candle CellPhone Cloth CreditCard DishSponge Fork HandTowel KeyChain Knife "
        "Ladle Newspaper Pen Pencil PepperShaker RemoteControl SaltShaker SoapBar SoapBottle Spatula Spoon "
        "SprayBottle TissueBox ToiletPaper Watch WateringCan",
        "Dresser": "AlarmClock BasketBall Book Bowl CD Candle CellPhone Cloth CreditCard Cup Glassbottle KeyChain "
        "Laptop Mug Newspaper Pen Pencil Plate RemoteControl SprayBottle Statue TennisRacket TissueBox ToiletPaper "
        "Vase Watch WateringCan WineBottle",
        "Fridge": "Apple Bowl Bread Cup Egg Glassbottle Lettuce Mug Pan Plate Pot Potato Tomato WineBottle",
        "GarbageCan": "Apple Bread CD Cloth DishSponge Egg HandTowel Lettuce Newspaper PaperTowel Pen Pencil Potato "
        "SoapBar SoapBottle SprayBottle TissueBox ToiletPaper Tomato WineBottle",
        "HandTowelHolder": "HandTowel",
        "LaundryHamper": "Cloth",
        "Microwave": "Apple Bowl Bread Cup Egg Glassbottle Mug Plate Potato Tomato",
        "Ottoman": "BasketBall Book CellPhone Cloth CreditCard KeyChain Laptop Newspaper Pillow RemoteControl",
        "Safe": "CD CellPhone CreditCard KeyChain Statue Vase Watch",
        "Shelf": "AlarmClock Book Bowl CD Candle CellPhone Cloth CreditCard Cup DishSponge Glassbottle HandTowel "
        "Kettle KeyChain Mug Newspaper PaperTowel Pen Pencil PepperShaker Plate Pot RemoteControl SaltShaker SoapBar "
        "SoapBottle SprayBottle Statue TissueBox ToiletPaper Vase Watch WateringCan WineBottle",
        "SideTable": _TABLE,
        "SinkBasin": "Apple Bowl ButterKnife Cloth Cup DishSponge Egg Fork Glassbottle HandTowel Kettle Knife Ladle "
        "Lettuce Mug Pan Plate Pot Potato SoapBar Spatula Spoon Tomato",
        "Sofa": "BasketBall Book CellPhone Cloth CreditCard KeyChain Laptop Newspaper Pillow RemoteControl",
        "StoveBurner": "Kettle Pan Pot",
        "TVStand": "TissueBox",
        "Toaster": "",
        "Toilet": "Candle Cloth DishSponge HandTowel Newspaper PaperTowel SoapBar SoapBottle SprayBottle TissueBox "
        "ToiletPaper",
        "ToiletPaperHanger": "ToiletPaper",
        "TowelHolder": "Towel",
    }.items()
}

#: Where a lamp (a toggleable, non-pickupable object) stands.
LAMP_STANDS = {
    "DeskLamp": ("Desk", "SideTable", "Dresser", "Shelf", "CoffeeTable"),
    "FloorLamp": ("SideTable", "ArmChair", "Sofa", "Dresser", "CoffeeTable"),
}

#: Per room type: receptacle class -> (probability a room has it, min count, max count).
#: Probabilities are the share of ALFRED's 30 floorplans of that type that have the class.
ROOM_RECEPTACLES: dict[str, dict[str, tuple[float, int, int]]] = {
    "Kitchen": {
        "Cabinet": (1.0, 3, 12),
        "CounterTop": (1.0, 1, 3),
        "Drawer": (0.93, 1, 6),
        "Fridge": (1.0, 1, 1),
        "Microwave": (1.0, 1, 1),
        "SinkBasin": (1.0, 1, 2),
        "StoveBurner": (1.0, 2, 4),
        "CoffeeMachine": (1.0, 1, 1),
        "Toaster": (1.0, 1, 1),
        "GarbageCan": (1.0, 1, 1),
        "DiningTable": (0.53, 1, 2),
        "Shelf": (0.17, 1, 3),
        "SideTable": (0.1, 1, 1),
        "Safe": (0.03, 1, 1),
    },
    "LivingRoom": {
        "ArmChair": (0.9, 1, 2),
        "Box": (0.6, 1, 1),
        "CoffeeTable": (0.83, 1, 2),
        "Drawer": (0.77, 1, 6),
        "GarbageCan": (1.0, 1, 1),
        "Sofa": (1.0, 1, 1),
        "SideTable": (0.8, 1, 3),
        "DiningTable": (0.47, 1, 1),
        "Shelf": (0.4, 2, 8),
        "TVStand": (0.4, 1, 1),
        "Dresser": (0.33, 1, 1),
        "Cabinet": (0.13, 1, 4),
        "Ottoman": (0.13, 1, 1),
        "Safe": (0.07, 1, 1),
        "Desk": (0.03, 1, 1),
    },
    "Bedroom": {
        "Bed": (1.0, 1, 1),
        "Drawer": (0.97, 2, 8),
        "GarbageCan": (1.0, 1, 1),
        "Desk": (0.63, 1, 1),
        "SideTable": (0.63, 1, 2),
        "Shelf": (0.67, 2, 6),
        "Dresser": (0.5, 1, 1),
        "LaundryHamper": (0.27, 1, 1),
        "ArmChair": (0.2, 1, 1),
        "Cabinet": (0.17, 1, 2),
        "Safe": (0.17, 1, 1),
        "DiningTable": (0.17, 1, 1),
        "CoffeeTable": (0.03, 1, 1),
        "CounterTop": (0.03, 1, 1),
    },
    "Bathroom": {
        "CounterTop": (0.83, 1, 1),
        "Cabinet": (0.5, 1, 4),
        "Drawer": (0.5, 1, 4),
        "GarbageCan": (1.0, 1, 1),
        "HandTowelHolder": (1.0, 1, 2),
        "SinkBasin": (1.0, 1, 2),
        "Toilet": (1.0, 1, 1),
        "ToiletPaperHanger": (1.0, 1, 1),
        "TowelHolder": (1.0, 1, 1),
        "BathtubBasin": (0.67, 1, 1),
        "Shelf": (0.27, 1, 3),
        "Cart": (0.07, 1, 1),
        "Dresser": (0.07, 1, 1),
        "SideTable": (0.07, 1, 1),
    },
}

#: Per room type: object class -> (probability, min count, max count).
ROOM_OBJECTS: dict[str, dict[str, tuple[float, int, int]]] = {
    "Kitchen": {
        **{
            c: (1.0, 1, 3)
            for c in [
                "Apple",
                "Bread",
                "ButterKnife",
                "DishSponge",
                "Egg",
                "Fork",
                "Knife",
                "Lettuce",
                "PepperShaker",
                "Potato",
                "SaltShaker",
                "SoapBottle",
                "Spatula",
                "Spoon",
                "Tomato",
            ]
        },
        "Bowl": (0.8, 1, 2),
        "Cup": (0.8, 1, 2),
        "Mug": (0.8, 1, 2),
        "Pan": (0.8, 1, 1),
        "Plate": (0.8, 1, 2),
        "Pot": (0.8, 1, 2),
        "Kettle": (0.5, 1, 1),
        "Ladle": (0.33, 1, 2),
        "WineBottle": (0.33, 1, 1),
        "Glassbottle": (0.23, 1, 2),
        "CellPhone": (0.13, 1, 1),
        "Statue": (0.13, 1, 1),
        "Vase": (0.13, 1, 2),
        "CreditCard": (0.1, 1, 1),
        "Book": (0.05, 1, 1),
        "Pen": (0.05, 1, 1),
        "Pencil": (0.05, 1, 1),
        "SprayBottle": (0.05, 1, 1),
    },
    "LivingRoom": {
        **{c: (1.0, 1, 3) for c in ["CreditCard", "KeyChain", "Laptop", "Pillow", "RemoteControl"]},
        "Statue": (0.97, 1, 3),
        "Newspaper": (0.6, 1, 2),
        "Vase": (0.6, 1, 3),
        "Watch": (0.53, 1, 2),
        "WateringCan": (0.43, 1, 1),
        "TissueBox": (0.3, 1, 2),
        "Book": (0.23, 1, 2),
        "CellPhone": (0.23, 1, 2),
        "Pen": (0.17, 1, 2),
        "Pencil": (0.13, 1, 2),
        "Candle": (0.1, 1, 2),
        "Bowl": (0.3, 1, 1),
        "Plate": (0.3, 1, 1),
        "FloorLamp": (1.0, 1, 1),
        "DeskLamp": (0.23, 1, 1),
    },
    "Bedroom": {
        **{
            c: (1.0, 1, 3)
            for c in [
                "AlarmClock",
                "Book",
                "CD",
                "CellPhone",
                "CreditCard",
                "KeyChain",
                "Laptop",
                "Pen",
                "Pencil",
                "Pillow",
            ]
        },
        "BaseballBat": (0.43, 1, 1),
        "BasketBall": (0.37, 1, 1),
        "TennisRacket": (0.33, 1, 1),
        "Cloth": (0.17, 1, 2),
        "TissueBox": (0.13, 1, 1),
        "Statue": (0.13, 1, 1),
        "Vase": (0.1, 1, 1),
        "RemoteControl": (0.1, 1, 1),
        "Watch": (0.07, 1, 1),
        "Bowl": (0.3, 1, 1),
        "Mug": (0.3, 1, 1),
        "DeskLamp": (0.67, 1, 1),
    },
    "Bathroom": {
        **{
            c: (1.0, 1, 3)
            for c in [
                "Candle",
                "Cloth",
                "HandTowel",
                "Plunger",
                "SoapBar",
                "SoapBottle",
                "SprayBottle",
                "ToiletPaper",
            ]
        },
        "Towel": (1.0, 1, 1),
        "TissueBox": (0.3, 1, 1),
        "DishSponge": (0.2, 1, 1),
    },
}

#: How likely an object of no particular preference is put on each receptacle class (tables
#: and counters hold most things; cabinets and drawers fewer). The expert searches in this order.
PLACEMENT_WEIGHT = {
    "CounterTop": 4.0,
    "DiningTable": 4.0,
    "SideTable": 3.0,
    "CoffeeTable": 3.0,
    "Desk": 3.0,
    "Dresser": 3.0,
    "Bed": 4.0,
    "Sofa": 4.0,
    "ArmChair": 3.0,
    "Shelf": 2.0,
    "Fridge": 3.0,
    "SinkBasin": 2.0,
    "Toilet": 2.0,
    "GarbageCan": 1.0,
    "Microwave": 1.0,
    "StoveBurner": 3.0,
    "CoffeeMachine": 4.0,
    "Cabinet": 0.8,
    "Drawer": 0.8,
    "Safe": 1.0,
    "Box": 1.5,
    "Ottoman": 2.0,
    "TVStand": 3.0,
    "LaundryHamper": 3.0,
    "HandTowelHolder": 6.0,
    "TowelHolder": 6.0,
    "ToiletPaperHanger": 4.0,
    "BathtubBasin": 1.5,
    "Cart": 2.0,
}

#: Target receptacle classes a task may name, per task type (the transforming appliance of a
#: heat / cool / clean task is never the target, as in ALFRED).
EXCLUDED_TARGETS = {
    "pick_heat_then_place_in_recep": {"Microwave"},
    "pick_cool_then_place_in_recep": {"Fridge"},
    "pick_clean_then_place_in_recep": {"SinkBasin", "BathtubBasin"},
}
NEVER_TARGET = frozenset({"Toaster", "Safe"})
#: Class prefix of the THOR id of a receptacle class where it differs (sinks and bathtubs).
ID_CLASS = {"SinkBasin": "Sink", "BathtubBasin": "Bathtub"}


def affordances(cls: str) -> frozenset[str]:
    """ALFWorld's affordance predicates for an object class."""
    out = set()
    if cls not in TOGGLEABLE:
        out.add("pickupable")
    for name, members in (
        ("cleanable", CLEANABLE),
        ("heatable", HEATABLE),
        ("coolable", COOLABLE),
        ("sliceable", SLICEABLE),
        ("toggleable", TOGGLEABLE),
        ("isReceptacleObject", RECEPTACLE_OBJECTS),
    ):
        if cls in members:
            out.add(name)
    return frozenset(out)
