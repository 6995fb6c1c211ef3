"""Every AgentGym task family, declared once, and the ids this package registers for it.

Importing :mod:`agentgym_envs` runs this module. Entry points are strings, so nothing heavy is
imported until an env is made. A family's facts live in its :class:`~agentgym_envs.spec.Family`
record; an id states only what differs between ids of one family.
"""

from agentgym_envs.spec import Family, Wire, register_env, register_family

# -- Wordle ------------------------------------------------------------------------------
WORDLE = register_family(
    Family(
        name="wordle",
        display_name="Wordle",
        item_prefix="wordle",
        agentgym_prefixes=("lmrlgym_wordle",),
        extra="wordle",
        expert="agentgym_envs.envs.wordle.expert:WordleExpert",
        entry_point="agentgym_envs.envs.wordle.env:WordleEnv",
        max_rounds=8,
        agenteval_file="lmrlgym_wordle_test.json",
        agenteval_size=25,
        wire=Wire(
            "A",
            "seed",
            url_prefix="/wordle",
            get_endpoints=("filtered_vocab",),
            finished_error=True,
        ),
        reply_parser="between_actions",
        first_turn="vocab_in_rules",
        agentgym_client=("lmrlgym", "WordleEnvClient"),
    )
)
register_env(
    WORDLE,
    "Wordle-v0",
    splits={"train": 3499, "test": 25},
    description="LMRL-Gym's Wordle as AgentGym serves it: 40 words, six tries, the hidden word "
    "re-drawn among the words consistent with the feedback after every guess.",
)
register_env(
    WORDLE,
    "WordleClassic-v0",
    splits={"train": 3499, "test": 25},
    description="Real Wordle on a 3.5k-answer / 11k-guess vocabulary with a fixed hidden word, "
    "for training diversity.",
    item_prefix="wordle_classic",
    kwargs={"game": "classic"},
    ours=True,
)

# -- Maze --------------------------------------------------------------------------------
MAZE = register_family(
    Family(
        name="maze",
        display_name="Maze",
        item_prefix="maze",
        agentgym_prefixes=("lmrlgym_maze",),
        extra="maze",
        expert="agentgym_envs.envs.maze.expert:MazeExpert",
        entry_point="agentgym_envs.envs.maze.env:MazeEnv",
        max_rounds=15,
        agenteval_file="lmrlgym_maze_test.json",
        agenteval_size=25,
        wire=Wire("A", "game", url_prefix="/maze", finished_error=True),
        reply_parser="between_actions",
        first_turn="rules_then_observation",
        agentgym_client=("lmrlgym", "MazeEnvClient"),
    )
)
register_env(
    MAZE,
    "Maze-v0",
    splits={"train": 25, "test": 25},
    description="Walk LMRL-Gym's double-T maze to its goal from one of 25 start cells, as "
    "AgentGym's server plays it (50-step cap).",
)
register_env(
    MAZE,
    "MazeRandom-v0",
    splits={"train": 10000, "test": 100},
    description="Seeded perfect mazes (default 4x4 rooms) for training diversity.",
    max_rounds=40,
    item_prefix="maze_random",
    kwargs={"layout": "random", "max_steps": 100},
    ours=True,
)

# -- BabyAI ------------------------------------------------------------------------------
BABYAI = register_family(
    Family(
        name="babyai",
        display_name="BabyAI",
        item_prefix="babyai",
        extra="babyai",
        requires=("minigrid",),
        expert="agentgym_envs.envs.babyai.expert:BabyAIExpert",
        entry_point="agentgym_envs.envs.babyai.env:BabyAIEnv",
        reward="graded",
        max_rounds=20,
        agenteval_file="babyai_test.json",
        agenteval_size=90,
        wire=Wire(
            "A", "data_idx", step_extras=("score",), get_endpoints=("render",), finished_error=True
        ),
        scaling_inter=((6, 13, 20), 100),
        fixed_rounds=20,
        reply_parser="single_action",
        agentgym_client=("babyai", "BabyAIEnvClient"),
    )
)
register_env(
    BABYAI,
    "BabyAI-v0",
    splits={"train": 9910, "test": 90},
    description="AgentGym's BabyAI server reproduced: minigrid's 40 BabyAI levels (as minigrid 2.3 "
    "builds them) in words, with its macro actions.",
)

# -- TextCraft ---------------------------------------------------------------------------
TEXTCRAFT = register_family(
    Family(
        name="textcraft",
        display_name="TextCraft",
        item_prefix="textcraft",
        extra="textcraft",
        requires=("minecraft_data",),
        expert="agentgym_envs.envs.textcraft.expert:TextCraftExpert",
        entry_point="agentgym_envs.envs.textcraft.env:TextCraftEnv",
        max_rounds=20,
        agenteval_file="textcraft_test.json",
        agenteval_size=100,
        wire=Wire("A", "data_idx", create_starts_item=True, get_endpoints=("commands", "goal")),
        scaling_inter=((10, 20, 30), 100),
        fixed_rounds=30,
        reply_parser="single_action",
        agentgym_client=("textcraft", "TextCraftEnvClient"),
    )
)
register_env(
    TEXTCRAFT,
    "TextCraft-v0",
    splits={"train": 444, "test": 100},
    description="AgentGym's TextCraft server reproduced: craft one of its 544 Minecraft goals with "
    "the commands given (recipes rebuilt from minecraft-data 1.16.1).",
)

# -- ALFWorld ----------------------------------------------------------------------------
ALFWORLD = register_family(
    Family(
        name="alfworld",
        display_name="ALFWorld",
        item_prefix="alfworld",
        extra="alfworld",
        expert="agentgym_envs.envs.alfworld.expert:AlfWorldExpert",
        entry_point="agentgym_envs.envs.alfworld.env:AlfWorldEnv",
        max_rounds=30,
        agenteval_file="alfworld_test.json",
        agenteval_size=200,
        wire=Wire("A", "game", step_extras=("available_actions",), finished_error=True),
        reply_parser="last_action",
        first_turn="actions_line",
        agentgym_client=("alfworld", "AlfWorldEnvClient"),
        stand_in="the embedded ALFWorld games are generated stand-ins: pass data_path= (or set "
        "ALFWORLD_DATA) to ALFWorld's json_2.1.1 folder to play AgentGym's items",
        category="moderate",
        data_variables=("ALFWORLD_DATA",),
    )
)
register_env(
    ALFWORLD,
    "ALFWorld-v0",
    splits={"train": 2420, "test": 200},
    description="Household tasks in ALFWorld's text world: find, clean/heat/cool and place "
    "objects.",
)

# -- SciWorld ----------------------------------------------------------------------------
SCIWORLD = register_family(
    Family(
        name="sciworld",
        display_name="SciWorld",
        item_prefix="sciworld",
        extra="sciworld",
        requires=("scienceworld", "py4j"),
        expert="agentgym_envs.envs.sciworld.expert:SciWorldExpert",
        entry_point="agentgym_envs.envs.sciworld.env:SciWorldEnv",
        reward="graded",
        max_rounds=30,
        agenteval_file="sciworld_test.json",
        agenteval_size=200,
        score_scale=100.0,
        wire=Wire(
            "A",
            "data_idx",
            step_extras=("score",),
            get_endpoints=("action_hint", "goals", "task_description", "object_tree", "state"),
            finished_error=True,
        ),
        scaling_inter=((10, 20, 30), 100),
        fixed_rounds=20,
        reply_parser="last_action",
        agentgym_client=("sciworld", "SciworldEnvClient"),
        category="heavy",
        system_needs=(("java", True),),
        memory_mb=400,
    )
)
register_env(
    SCIWORLD,
    "SciWorld-v0",
    splits={"train": 2312, "test": 200},
    description="ScienceWorld's elementary-science tasks (boil, find a plant, test conductivity, "
    "...) as AgentGym plays them; score 0-100.",
)


# -- Tool use: Weather, Movie, Academia, TODOList, Sheet ---------------------------------
def _tool_family(name: str, display: str, cls: str, max_rounds: int, **facts) -> Family:
    return register_family(
        Family(
            name=name,
            display_name=display,
            item_prefix=name,
            agentgym_prefixes=(f"tool_{name}",),
            extra="tools",
            expert=f"agentgym_envs.envs.{name}.expert:{cls}Expert",
            entry_point=f"agentgym_envs.envs.{name}.env:{cls}Env",
            max_rounds=max_rounds,
            agenteval_file=f"tool_{name}_test.json",
            agenteval_size=20,
            wire=Wire("C", "id"),
            reply_parser="raw",
            agentgym_client=(name, f"{cls}EnvClient"),
            stand_in=f"the {display} tasks are generated stand-ins on an offline backend: "
            "AgentGym's tool servers call live APIs, so its items cannot be replayed here",
            **facts,
        )
    )


WEATHER = _tool_family("weather", "Weather", "Weather", 10)
MOVIE = _tool_family("movie", "Movie", "Movie", 12)
ACADEMIA = _tool_family("academia", "Academia", "Academia", 12)
TODO = _tool_family("todo", "TODOList", "Todo", 15)
SHEET = _tool_family("sheet", "Sheet", "Sheet", 15, reward="graded")

register_env(
    WEATHER,
    "Weather-v0",
    splits={"train": 1000, "test": 20},
    description="Answer weather questions with Open-Meteo-style tools on an offline climate "
    "(AgentBoard's tool set).",
)
register_env(
    MOVIE,
    "Movie-v0",
    splits={"train": 1000, "test": 20},
    description="Answer film questions with TMDB-style tools on a generated offline film database.",
)
register_env(
    ACADEMIA,
    "Academia-v0",
    splits={"train": 1000, "test": 20},
    description="Answer questions over generated citation and co-authorship graphs (AgentBoard's "
    "academia tools).",
)
register_env(
    TODO,
    "TODOList-v0",
    splits={"train": 600, "test": 20},
    description="Answer questions about and change a Todoist-like task manager kept in SQLite "
    "(AgentBoard's todo tools).",
)
register_env(
    SHEET,
    "Sheet-v0",
    splits={"train": 500, "test": 20},
    description="Edit spreadsheets (update, sort, insert, delete, formulas) with gspread-style "
    "tools on an in-memory engine.",
)

# -- BIRD SQL ----------------------------------------------------------------------------
SQL = register_family(
    Family(
        name="sql",
        display_name="BIRD (SQLGym)",
        item_prefix="sqlgym",
        extra="sql",
        requires=("sqlalchemy",),
        expert="agentgym_envs.envs.sql.expert:SQLExpert",
        entry_point="agentgym_envs.envs.sql.env:BirdSQLEnv",
        max_rounds=1,
        agenteval_file="sqlgym_test.json",
        agenteval_size=200,
        wire=Wire("B", "item_id"),
        reply_parser="sql_block",
        agentgym_client=("sqlgym", "SqlGymEnvClient"),
        stand_in="the embedded SQL databases and questions are generated stand-ins: pass "
        "data_path= (or set AGENTGYM_BIRD_PATH) to a BIRD release folder to play AgentGym's items",
        data_variables=("AGENTGYM_BIRD_PATH",),
    )
)
register_env(
    SQL,
    "BIRD-v0",
    splits={"train": 2943, "test": 200},
    description="Text-to-SQL on SQLite databases (AgentGym's BIRD/sqlgym): one query, scored by "
    "execution accuracy.",
)
register_env(
    SQL,
    "BIRDInteractive-v0",
    splits={"train": 2943, "test": 200},
    description="BIRD text-to-SQL, multi-turn: run exploratory queries, then submit one; "
    "execution accuracy.",
    max_rounds=10,
    max_episode_steps=30,
    kwargs={"interactive": True},
    ours=True,
)

# -- WebShop -----------------------------------------------------------------------------
WEBSHOP = register_family(
    Family(
        name="webshop",
        display_name="WebShop",
        item_prefix="webshop",
        extra="webshop",
        requires=("bm25s", "Stemmer", "thefuzz"),
        expert="agentgym_envs.envs.webshop.expert:WebShopExpert",
        entry_point="agentgym_envs.envs.webshop.env:WebShopEnv",
        reward="graded",
        max_rounds=10,
        agenteval_file="webshop_test.json",
        agenteval_size=200,
        wire=Wire("B", "session_id", get_endpoints=("instruction_text", "state")),
        reply_parser="last_action",
        agentgym_client=("webshop", "WebshopEnvClient"),
        stand_in="the embedded WebShop catalog and goals are generated stand-ins: pass "
        "data_path= to WebShop's product and instruction JSON files to play AgentGym's items",
        category="moderate",
        system_needs=(("chromium", False),),
    )
)
register_env(
    WEBSHOP,
    "WebShop-v0",
    splits={"train": 6000, "test": 200},
    description="Search a 10k-product shop (BM25), pick the product and options an instruction "
    "asks for, buy.",
)

# -- SearchQA ---------------------------------------------------------------------------
SEARCHQA = register_family(
    Family(
        name="searchqa",
        display_name="SearchQA",
        item_prefix="searchqa",
        extra="searchqa",
        requires=("bm25s",),
        expert="agentgym_envs.envs.searchqa.expert:SearchQAExpert",
        entry_point="agentgym_envs.envs.searchqa.env:SearchQAEnv",
        max_rounds=5,
        wire=Wire("C", "id"),
        scaling_inter=((5, 8, 10), 100),
        fixed_rounds=5,
        reply_parser="raw",
        agentgym_client=("searchqa", "SearchQAEnvClient"),
        stand_in="a generated encyclopedia of a fictional world and its questions stand in for "
        "AgentGym's wiki-18 corpus and QA sets: pass corpus_path= with test_path=/train_path= "
        "(or SEARCHQA_CORPUS_PATH, SEARCHQA_TEST_PATH, SEARCHQA_TRAIN_PATH)",
        category="moderate",
        data_variables=("SEARCHQA_CORPUS_PATH", "SEARCHQA_TRAIN_PATH", "SEARCHQA_TEST_PATH"),
    )
)
register_env(
    SEARCHQA,
    "SearchQA-v0",
    splits={"train": 6264, "test": 350},
    description="Answer single- and multi-hop questions about a generated fictional world by "
    "searching its encyclopedia (BM25, top 3); exact-match reward.",
)

# -- WebArena ---------------------------------------------------------------------------
WEBARENA = register_family(
    Family(
        name="webarena",
        display_name="WebArena",
        item_prefix="webarena",
        extra="webarena",
        requires=("playwright", "fastapi", "uvicorn", "httpx"),
        expert="agentgym_envs.envs.webarena.expert:WebArenaExpert",
        entry_point="agentgym_envs.envs.webarena.env:WebArenaEnv",
        max_rounds=25,
        agenteval_file="webarena_test.json",
        agenteval_size=20,
        scaling_inter=((8, 12, 15), 80),
        fixed_rounds=15,
        reply_parser="raw",
        wire=Wire("D", "idx"),
        agentgym_client=("webarena", "WebarenaEnvClient"),
        stand_in="the package's own sites (storefront, shop admin, forum, code host with git "
        "repositories, wiki, map; the map has no tasks in the agentgym set: its share there is the "
        "wiki's) and their tasks "
        "stand in for WebArena's docker sites and AgentEval's items: "
        "WebArenaEnv(config_path=..., site_urls=...) plays WebArena's configs on your deployment",
        category="heavy",
        system_needs=(("chromium", True),),
        memory_mb=600,
    )
)
register_env(
    WEBARENA,
    "WebArena-v0",
    splits={"train": 792, "test": 20},
    description="Task set 'agentgym': WebArena's 812 web tasks (its observation, actions and "
    "evaluators) from our own templates on local "
    "sites in Chromium; by site: shopping 187, shopping_admin 182, gitlab 180, wikipedia 109 "
    "(WebArena's map share), reddit 106, multi-site 48.",
)
register_env(
    WEBARENA,
    "WebArenaTemplates-v0",
    splits={"train": 1602, "test": 183},
    description="Task set 'webarena': WebArena's own intent templates (read from the installed "
    "libwebarena) instantiated on the same local sites, with its eval types, per-site shares "
    "and unachievable ('N/A') tasks; one test task per template id; the map site plays 26 of "
    "its 33 map templates on a generated city (3 with the wiki's articles about it).",
    kwargs={"task_set": "webarena"},
    extra_requires=("webarena",),
    extra="webarena-templates",
    ours=True,
)

# -- Ours, beyond AgentGym: multi-agent text games, TextWorld ----------------------------
MULTIAGENT = register_family(
    Family(
        name="multiagent",
        display_name="Multi-agent text games",
        item_prefix="textgame",
        extra="multiagent",
        requires=("pettingzoo",),
        expert="agentgym_envs.multiagent.single:GameExpert",
        entry_point="agentgym_envs.multiagent.single:TextGameEnv",
        reward="graded",
        max_rounds=10,
        reply_parser="last_action",
    )
)
for _game, _name, _prefix, _rounds, _text in (
    (
        "tictactoe",
        "TicTacToe-v0",
        "tictactoe",
        10,
        "Tic-tac-toe against a built-in opponent; not losing is success.",
    ),
    (
        "connect_four",
        "ConnectFour-v0",
        "connectfour",
        30,
        "Connect four against a built-in opponent.",
    ),
    (
        "bargaining",
        "Bargaining-v0",
        "bargaining",
        10,
        "Split books, hats and balls under private values (Deal or No Deal).",
    ),
    (
        "mastermind",
        "Mastermind-v0",
        "mastermind",
        12,
        "Break the opponent's hidden 4-peg, 6-colour code in 8 guesses.",
    ),
):
    register_env(
        MULTIAGENT,
        _name,
        splits={"train": 10000, "test": 50},
        description=_text,
        max_rounds=_rounds,
        item_prefix=_prefix,
        kwargs={"game": _game},
        ours=True,
    )

TEXTWORLD = register_family(
    Family(
        name="textworld",
        display_name="TextWorld",
        item_prefix="textworld",
        extra="textworld",
        requires=("textworld",),
        expert="agentgym_envs.envs.tw_games.expert:TextWorldExpert",
        entry_point="agentgym_envs.envs.tw_games.env:TextWorldEnv",
        reward="graded",
        max_rounds=30,
        reply_parser="last_action",
        category="moderate",
    )
)
register_env(
    TEXTWORLD,
    "TextWorld-v0",
    splits={"train": 3000, "test": 30},
    description="TextWorld's coin collector, treasure hunter and cooking games in turn, by seed.",
    ours=True,
)
for _challenge, _name, _text in (
    ("coin_collector", "TextWorldCoinCollector-v0", "Walk a chain of rooms to the coin (level 5)."),
    ("treasure_hunter", "TextWorldTreasureHunter-v0", "Find the named object (level 10)."),
    (
        "cooking",
        "TextWorldCooking-v0",
        "Read the recipe, gather, cut and cook, eat (FTWP level 3).",
    ),
):
    register_env(
        TEXTWORLD,
        _name,
        splits={"train": 1000, "test": 10},
        description=_text,
        kwargs={"challenge": _challenge},
        ours=True,
    )
