"""Facts of AgentGym's TextCraft recipe set that ``minecraft-data`` does not carry.

AgentGym (commit 3ef9235) ships Minecraft 1.16's vanilla recipe files (``recipes/*.json``) and
reads them in the order ``os.listdir`` gives. ``minecraft-data`` 1.16.1 has the same recipes with
every ingredient group expanded into variants and without file names, groups or key order. The
tables below are what is needed to rebuild AgentGym's recipe list from it (see
:mod:`agentgym_envs.envs.textcraft.recipes`); everything else comes from minecraft-data.
"""

from __future__ import annotations


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


#: The crafting recipes (shaped and shapeless; AgentGym skips every other type) by file name, in
#: the order AgentGym's server read them (``os.listdir`` of its ``recipes/`` folder, measured on
#: the machine that recorded the golden transcripts). The order decides which recipe of a cycle
#: is dropped, the order of the goals of equal depth and the order distractors are drawn from.
LOAD_ORDER: tuple[str, ...] = _names(
    "dark_prismarine_slab mossy_stone_brick_stairs light_blue_dye_from_blue_orchid golden_shovel "
    "stone_brick_stairs ender_chest comparator mossy_cobblestone_slab lime_terracotta emerald_block "
    "glass_pane purple_wool magenta_banner red_carpet_from_white_carpet polished_granite_slab "
    "brown_banner yellow_concrete_powder green_stained_glass "
    "gray_stained_glass_pane_from_glass_pane yellow_stained_glass yellow_carpet trapped_chest "
    "white_stained_glass_pane beacon magenta_dye_from_blue_red_pink blue_stained_glass "
    "flint_and_steel pink_wool diamond_axe red_nether_brick_stairs light_blue_stained_glass_pane "
    "flower_banner_pattern leather_chestplate purple_bed light_blue_bed_from_white_bed glowstone "
    "iron_leggings orange_carpet crossbow rail jungle_planks coal_block polished_granite_stairs "
    "furnace_minecart turtle_helmet jungle_wood pink_bed acacia_boat cyan_dye red_nether_brick_wall "
    "magma_block orange_concrete_powder arrow gold_ingot_from_nuggets flower_pot acacia_sign "
    "spruce_button lime_wool iron_axe pink_dye_from_peony dark_prismarine_stairs spruce_stairs "
    "purple_banner leather_horse_armor cyan_carpet item_frame polished_blackstone_wall "
    "light_blue_banner stone_shovel pink_dye_from_pink_tulip magenta_dye_from_purple_and_pink "
    "golden_hoe yellow_banner light_gray_wool gray_banner respawn_anchor "
    "yellow_carpet_from_white_carpet iron_bars pink_stained_glass_pane_from_glass_pane diorite_wall "
    "lectern mossy_stone_bricks grindstone chiseled_quartz_block stone_sword "
    "mossy_cobblestone_stairs painting jungle_pressure_plate spruce_pressure_plate coal iron_shovel "
    "stone_bricks orange_bed andesite_stairs orange_stained_glass_pane acacia_fence_gate "
    "yellow_bed_from_white_bed cake cobblestone_slab lead prismarine_brick_stairs gray_wool "
    "iron_helmet jungle_sign yellow_terracotta white_terracotta cyan_bed cyan_concrete_powder "
    "gray_stained_glass_pane oak_wood birch_boat jungle_door spruce_fence_gate sandstone_wall "
    "cut_sandstone_slab warped_slab shears orange_bed_from_white_bed "
    "light_blue_dye_from_blue_white_dye snow_block stick iron_hoe polished_basalt detector_rail "
    "chain red_dye_from_beetroot creeper_banner_pattern stone_brick_wall black_dye "
    "prismarine_brick_slab polished_blackstone_bricks yellow_stained_glass_pane cyan_wool "
    "quartz_bricks loom jungle_fence spruce_boat paper pumpkin_pie acacia_door blue_bed armor_stand "
    "light_blue_concrete_powder chiseled_red_sandstone iron_block stick_from_bamboo_item blue_ice "
    "white_dye fishing_rod campfire warped_fence spruce_wood chest_minecart target leather_leggings "
    "crimson_slab polished_diorite_stairs red_bed_from_white_bed blast_furnace wooden_sword "
    "diamond_chestplate golden_helmet hopper_minecart prismarine_slab gray_bed pink_stained_glass "
    "fire_charge gray_dye light_weighted_pressure_plate red_terracotta tnt netherite_ingot "
    "spruce_planks stone_pressure_plate honey_block iron_trapdoor iron_pickaxe crimson_planks "
    "leather chiseled_sandstone prismarine_stairs iron_ingot_from_iron_block wooden_shovel "
    "magenta_stained_glass_pane_from_glass_pane lime_carpet stone_button cyan_terracotta "
    "scaffolding purple_carpet prismarine_bricks light_blue_carpet green_stained_glass_pane "
    "prismarine_wall iron_sword orange_carpet_from_white_carpet light_gray_concrete_powder granite "
    "brown_stained_glass_pane red_stained_glass_pane note_block red_sandstone_slab "
    "green_concrete_powder stripped_jungle_wood granite_slab stripped_crimson_hyphae acacia_slab "
    "mossy_cobblestone_wall pink_terracotta magenta_bed green_banner sugar dark_prismarine "
    "birch_fence_gate white_concrete_powder iron_ingot_from_nuggets polished_andesite_stairs "
    "red_wool nether_brick_stairs purple_stained_glass_pane smoker oak_button redstone_torch "
    "stripped_spruce_wood orange_stained_glass prismarine light_blue_terracotta leather_boots "
    "light_gray_banner crimson_sign black_stained_glass glistering_melon_slice "
    "polished_blackstone_button gray_terracotta bucket sandstone_stairs lantern smooth_stone_slab "
    "orange_wool acacia_stairs stone_stairs purpur_block acacia_fence "
    "white_dye_from_lily_of_the_valley yellow_wool warped_fungus_on_a_stick "
    "gold_ingot_from_gold_block jungle_slab dark_oak_planks carrot_on_a_stick "
    "blue_stained_glass_pane acacia_button clock blackstone_stairs magenta_concrete_powder "
    "blue_dye_from_cornflower cookie observer polished_diorite blackstone_slab "
    "light_gray_dye_from_azure_bluet warped_stairs polished_blackstone warped_planks "
    "orange_terracotta sugar_from_sugar_cane quartz_stairs leather_helmet birch_planks golden_apple "
    "cut_red_sandstone_slab dark_oak_slab birch_door acacia_planks polished_blackstone_slab "
    "blue_bed_from_white_bed pink_banner conduit birch_sign blue_concrete_powder crimson_stairs "
    "brick_stairs green_terracotta red_dye_from_rose_bush yellow_dye_from_dandelion shield "
    "fletching_table brown_bed nether_brick_fence activator_rail redstone_block nether_wart_block "
    "dark_oak_door crimson_trapdoor light_gray_carpet dark_oak_stairs "
    "black_stained_glass_pane_from_glass_pane oak_slab light_blue_stained_glass diorite_stairs "
    "polished_blackstone_brick_slab oak_stairs composter golden_axe end_crystal "
    "mojang_banner_pattern birch_fence warped_button dropper "
    "brown_stained_glass_pane_from_glass_pane coarse_dirt jungle_trapdoor brick_wall sandstone_slab "
    "green_wool light_gray_dye_from_black_white_dye lever light_gray_bed_from_white_bed "
    "dark_oak_trapdoor golden_pickaxe magenta_wool lime_stained_glass_pane acacia_pressure_plate "
    "white_stained_glass jungle_button map slime_ball packed_ice red_concrete_powder "
    "lime_carpet_from_white_carpet bookshelf white_bed andesite_slab pink_stained_glass_pane "
    "enchanting_table dark_oak_sign orange_dye_from_orange_tulip honey_bottle "
    "smooth_red_sandstone_stairs stone_hoe stripped_dark_oak_wood ender_eye pink_concrete_powder "
    "golden_boots red_sandstone_stairs oak_planks bowl gray_concrete_powder lime_banner gold_block "
    "diamond_boots diorite purple_stained_glass_pane_from_glass_pane warped_fence_gate bow "
    "cut_sandstone chiseled_polished_blackstone diamond_sword "
    "light_gray_stained_glass_pane_from_glass_pane gray_carpet_from_white_carpet diamond_shovel "
    "blue_dye light_blue_carpet_from_white_carpet daylight_detector smithing_table green_carpet "
    "lime_concrete_powder jukebox brown_wool chiseled_stone_bricks fermented_spider_eye "
    "smooth_sandstone_slab pink_bed_from_white_bed polished_blackstone_pressure_plate minecart "
    "oak_pressure_plate black_bed smooth_red_sandstone_slab red_sandstone spruce_trapdoor "
    "gold_nugget compass andesite oak_door green_bed_from_white_bed mushroom_stew "
    "brown_stained_glass redstone_lamp diamond_leggings magenta_terracotta clay lodestone "
    "birch_wood cyan_stained_glass_pane_from_glass_pane red_dye_from_poppy wooden_axe "
    "light_blue_stained_glass_pane_from_glass_pane light_gray_dye_from_white_tulip dark_oak_button "
    "magenta_stained_glass rabbit_stew_from_red_mushroom redstone ladder mossy_stone_brick_wall "
    "dark_oak_fence oak_fence glass_bottle magenta_dye_from_blue_red_white_dye dried_kelp_block "
    "white_carpet green_stained_glass_pane_from_glass_pane stone_axe red_banner "
    "warped_pressure_plate soul_torch purple_concrete_powder magenta_stained_glass_pane magma_cream "
    "iron_door spectral_arrow quartz_block mossy_stone_brick_slab bread red_stained_glass "
    "purple_bed_from_white_bed cobblestone_stairs jungle_boat magenta_carpet_from_white_carpet "
    "end_stone_brick_stairs granite_wall light_gray_dye_from_oxeye_daisy spruce_door "
    "smooth_quartz_stairs cyan_carpet_from_white_carpet mossy_cobblestone anvil red_nether_bricks "
    "polished_granite nether_brick_wall cyan_stained_glass_pane skull_banner_pattern "
    "dark_oak_pressure_plate polished_blackstone_brick_wall soul_lantern dark_oak_fence_gate "
    "purpur_pillar polished_andesite golden_chestplate beetroot_soup end_stone_brick_slab "
    "oak_trapdoor diamond_block chiseled_nether_bricks writable_book light_gray_stained_glass_pane "
    "brown_carpet_from_white_carpet powered_rail brown_dye diamond jungle_fence_gate quartz_slab "
    "polished_blackstone_stairs furnace warped_hyphae white_stained_glass_pane_from_glass_pane "
    "stripped_acacia_wood brown_terracotta blue_wool torch crimson_fence_gate lime_bed yellow_bed "
    "black_wool warped_sign sea_lantern spruce_fence melon_seeds black_terracotta emerald "
    "lime_stained_glass_pane_from_glass_pane purpur_stairs lime_dye stonecutter warped_door "
    "wooden_pickaxe stone_slab iron_nugget tripwire_hook crimson_fence yellow_dye_from_sunflower "
    "blaze_powder book golden_sword smooth_quartz_slab diorite_slab shulker_box stripped_birch_wood "
    "cauldron heavy_weighted_pressure_plate wooden_hoe end_stone_bricks "
    "light_gray_dye_from_gray_white_dye cut_red_sandstone green_carpet_from_white_carpet snow "
    "pink_dye_from_red_white_dye spruce_sign red_stained_glass_pane_from_glass_pane orange_banner "
    "dark_oak_wood hopper blue_stained_glass_pane_from_glass_pane "
    "netherite_ingot_from_netherite_block red_sandstone_wall birch_button purpur_slab bone_block "
    "sandstone nether_bricks beehive black_carpet_from_white_carpet barrel lapis_block "
    "magenta_bed_from_white_bed magenta_dye_from_lilac birch_pressure_plate polished_andesite_slab "
    "brick_slab light_gray_bed smooth_sandstone_stairs black_stained_glass_pane acacia_trapdoor "
    "cyan_banner honeycomb_block birch_trapdoor slime_block hay_block orange_dye_from_red_yellow "
    "iron_boots white_wool_from_string jungle_stairs quartz_pillar crimson_door granite_stairs "
    "andesite_wall pink_carpet cartography_table yellow_stained_glass_pane_from_glass_pane "
    "cobblestone_wall red_bed brown_bed_from_white_bed black_banner end_stone_brick_wall "
    "bone_meal_from_bone_block nether_brick_slab wheat diamond_helmet lime_bed_from_white_bed "
    "light_blue_wool golden_carrot purple_stained_glass blue_banner cyan_bed_from_white_bed "
    "magenta_carpet black_dye_from_wither_rose diamond_hoe stripped_oak_wood diamond_pickaxe "
    "stripped_warped_hyphae stone_pickaxe light_gray_stained_glass black_carpet oak_sign birch_slab "
    "rabbit_stew_from_brown_mushroom jack_o_lantern blue_carpet sticky_piston "
    "crimson_pressure_plate red_nether_brick_slab crafting_table black_bed_from_white_bed "
    "lapis_lazuli brown_concrete_powder blackstone_wall red_dye_from_tulip bricks "
    "light_gray_carpet_from_white_carpet netherite_block acacia_wood end_rod black_concrete_powder "
    "tnt_minecart blue_terracotta iron_chestplate dispenser brewing_stand light_gray_terracotta "
    "gray_stained_glass polished_diorite_slab magenta_dye_from_allium purple_terracotta "
    "crimson_hyphae red_carpet lime_stained_glass soul_campfire pumpkin_seeds light_blue_bed "
    "gray_bed_from_white_bed purple_carpet_from_white_carpet oak_boat golden_leggings "
    "oak_fence_gate warped_trapdoor white_banner sugar_from_honey_bottle chest spruce_slab "
    "polished_blackstone_brick_stairs blue_carpet_from_white_carpet melon purple_dye brown_carpet "
    "piston pink_carpet_from_white_carpet cyan_stained_glass repeater "
    "orange_stained_glass_pane_from_glass_pane crimson_button dark_oak_boat green_bed birch_stairs "
    "stone_brick_slab gray_carpet bone_meal dried_kelp"
)

WOODS = ("oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "crimson", "warped")

#: Recipe ``group`` -> the recipes in it (file-name patterns; ``{wood}`` stands for each wood;
#: the first group whose pattern matches wins). A group names an ingredient tag whose members
#: are the group's outputs, unless it equals the output's own id.
GROUPS: tuple[tuple[str, str], ...] = (
    ("dyed_bed", "*_bed_from_white_bed"),
    ("bed", "*_bed"),
    ("wool", "*_wool"),
    ("banner", "*_banner"),
    ("carpet", "*_carpet"),
    ("concrete_powder", "*_concrete_powder"),
    ("stained_glass", "*_stained_glass"),
    ("stained_glass_pane", "*_stained_glass_pane *_stained_glass_pane_from_glass_pane"),
    ("stained_terracotta", "*_terracotta"),
    ("planks", "*_planks"),
    ("bark", "*_wood *_hyphae"),
    ("boat", "*_boat"),
    ("sign", "*_sign"),
    ("sticks", "stick stick_from_bamboo_item"),
    ("bonemeal", "bone_meal bone_meal_from_bone_block"),
    ("wooden_button", "{wood}_button"),
    ("wooden_stairs", "{wood}_stairs"),
    ("wooden_pressure_plate", "{wood}_pressure_plate"),
    ("wooden_fence_gate", "{wood}_fence_gate"),
    ("wooden_door", "{wood}_door"),
    ("wooden_slab", "{wood}_slab"),
    ("wooden_fence", "{wood}_fence"),
    ("wooden_trapdoor", "{wood}_trapdoor"),
)

#: Outputs whose recipes are grouped under the output's own id (a group that adds no tag).
SELF_GROUPS = frozenset(
    _names(
        "black_dye blue_dye brown_dye light_blue_dye light_gray_dye magenta_dye orange_dye pink_dye "
        "red_dye white_dye yellow_dye gold_ingot iron_ingot netherite_ingot sugar rabbit_stew"
    )
)

#: Second copies of a recipe, without its group (AgentGym's folder has ``sugar.json`` next to
#: ``sugar_from_sugar_cane.json``).
DUPLICATES: dict[str, str] = {"sugar": "sugar_from_sugar_cane"}

#: Ingredient choices written as a list of alternatives in the recipe file (AgentGym takes the
#: first) rather than as a tag: the recipes and the item AgentGym keeps.
ALTERNATIVES: dict[str, str] = {
    "torch": "coal",
    "soul_torch": "coal",
    "fire_charge": "coal",
    "tnt": "sand",
    "sandstone_slab": "sandstone",
    "sandstone_stairs": "sandstone",
    "red_sandstone_slab": "red_sandstone",
    "red_sandstone_stairs": "red_sandstone",
    "quartz_slab": "chiseled_quartz_block",
    "quartz_stairs": "chiseled_quartz_block",
    "purpur_slab": "purpur_block",
    "purpur_stairs": "purpur_block",
}

#: Tags named differently from the default for their members (cobblestone and blackstone are
#: ``stone_tool_materials`` elsewhere); brewing stand's tag has one member in minecraft-data.
TAG_OVERRIDES: dict[str, tuple[str, str]] = {
    "furnace": ("stone_tool_materials", "stone_crafting_materials"),
    "brewing_stand": ("cobblestone", "stone_crafting_materials"),
}

#: Shaped recipes whose ingredients AgentGym lists in another order than their first appearance
#: in the crafting grid (the order of the recipe file's ``key``): the names in AgentGym's order.
KEY_ORDER: dict[str, str] = {
    "golden_shovel": "stick gold_ingot",
    "beacon": "nether_star glass obsidian",
    "diamond_axe": "stick diamond",
    "crossbow": "string stick iron_ingot tripwire_hook",
    "rail": "stick iron_ingot",
    "arrow": "stick flint feather",
    "iron_axe": "stick iron_ingot",
    "stone_shovel": "stick stone_tool_materials",
    "golden_hoe": "stick gold_ingot",
    "stone_sword": "stick stone_tool_materials",
    "iron_shovel": "stick iron_ingot",
    "cake": "milk_bucket sugar wheat egg",
    "iron_hoe": "stick iron_ingot",
    "detector_rail": "redstone stone_pressure_plate iron_ingot",
    "chain": "iron_ingot iron_nugget",
    "loom": "planks string",
    "jungle_fence": "stick jungle_planks",
    "campfire": "logs stick coals",
    "warped_fence": "stick warped_planks",
    "target": "hay_block redstone",
    "blast_furnace": "smooth_stone furnace iron_ingot",
    "wooden_sword": "stick planks",
    "tnt": "sand gunpowder",
    "iron_pickaxe": "stick iron_ingot",
    "wooden_shovel": "stick planks",
    "scaffolding": "string bamboo",
    "iron_sword": "stick iron_ingot",
    "redstone_torch": "stick redstone",
    "lantern": "torch iron_nugget",
    "acacia_fence": "stick acacia_planks",
    "observer": "quartz redstone cobblestone",
    "fletching_table": "planks flint",
    "activator_rail": "redstone_torch stick iron_ingot",
    "golden_axe": "stick gold_ingot",
    "end_crystal": "ghast_tear ender_eye glass",
    "birch_fence": "stick birch_planks",
    "dropper": "redstone cobblestone",
    "lever": "cobblestone stick",
    "golden_pickaxe": "stick gold_ingot",
    "enchanting_table": "book obsidian diamond",
    "stone_hoe": "stick stone_tool_materials",
    "diorite": "quartz cobblestone",
    "diamond_sword": "stick diamond",
    "diamond_shovel": "stick diamond",
    "daylight_detector": "quartz glass wooden_slabs",
    "smithing_table": "planks iron_ingot",
    "wooden_axe": "stick planks",
    "dark_oak_fence": "stick dark_oak_planks",
    "oak_fence": "stick oak_planks",
    "stone_axe": "stick stone_tool_materials",
    "red_nether_bricks": "nether_wart nether_brick",
    "soul_lantern": "soul_torch iron_nugget",
    "powered_rail": "redstone stick gold_ingot",
    "torch": "stick coal",
    "spruce_fence": "stick spruce_planks",
    "wooden_pickaxe": "stick planks",
    "tripwire_hook": "planks stick iron_ingot",
    "crimson_fence": "stick crimson_planks",
    "golden_sword": "stick gold_ingot",
    "shulker_box": "chest shulker_shell",
    "wooden_hoe": "stick planks",
    "hopper": "chest iron_ingot",
    "cartography_table": "planks paper",
    "diamond_hoe": "stick diamond",
    "diamond_pickaxe": "stick diamond",
    "stone_pickaxe": "stick stone_tool_materials",
    "sticky_piston": "piston slime_ball",
    "end_rod": "popped_chorus_fruit blaze_rod",
    "dispenser": "redstone cobblestone bow",
    "soul_campfire": "logs stick soul_fire_base_blocks",
    "piston": "redstone cobblestone planks iron_ingot",
}
