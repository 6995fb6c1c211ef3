"""Generated prose for the sites: reviews, forum posts and threaded replies, issues and merge
request descriptions, each drawn from small grammars whose slots are filled from the item they
are about (its product, forum, project) so that, over tens of thousands of rows, almost no two
texts are the same. Every function takes the caller's ``random.Random``: same seed, same text.
"""

from __future__ import annotations

import random

from agentgym_envs.envs.webarena.sites.vocab import USE_SHAPES, USES

_USES = (
    "on my morning commute",
    "for a weekend camping trip",
    "in a small apartment kitchen",
    "at the office every day",
    "for my daughter's dorm room",
    "on a long road trip",
    "while travelling for work",
    "in the garage workshop",
    "for a birthday gift",
    "as a backup for the old one",
    "in a humid bathroom",
    "for the kids' rooms",
    "during a move across town",
    "at the beach house",
    "for my mother who has arthritis",
    "in a shared office",
    "on the balcony garden",
    "for daily workouts",
    "in a rental cabin",
    "for holiday baking",
)
_DURATIONS = (
    "two days",
    "a week",
    "ten days",
    "three weeks",
    "a month",
    "six weeks",
    "two months",
    "three months",
    "half a year",
    "almost a year",
    "over a year",
)
_ASPECTS = (
    "the finish",
    "the stitching",
    "the lid",
    "the zipper",
    "the handle",
    "the size chart",
    "the instructions",
    "the smell",
    "the colour",
    "the weight",
    "the packaging",
    "the price",
    "the battery",
    "the strap",
    "the texture",
    "the fit",
    "the seal",
    "the cord",
    "the buttons",
    "the hinge",
    "the coating",
    "the grip",
)
_VERDICTS_GOOD = (
    "holds up better than expected",
    "is exactly as pictured",
    "feels sturdier than the price suggests",
    "beat the name brands I tried",
    "made my routine easier",
    "was worth every cent",
    "arrived earlier than promised",
    "works just as described",
    "is a clear upgrade",
    "surprised me in a good way",
)
_VERDICTS_BAD = (
    "started to wear quickly",
    "is smaller than the listing says",
    "did not survive the first wash",
    "came with a scratch",
    "stopped working after a while",
    "feels flimsier than it looks",
    "was not what the photos show",
    "needed a replacement part",
    "is hard to clean",
    "gave me more trouble than it's worth",
)
_CLOSERS_GOOD = (
    "I already ordered a second one.",
    "Would recommend to friends.",
    "Five stars from me.",
    "I'll keep buying this brand.",
    "Good value for the money.",
    "My partner wants one too.",
    "No complaints so far.",
    "Happy customer here.",
)
_CLOSERS_BAD = (
    "I'm returning it.",
    "Customer service was slow to answer.",
    "Not buying this again.",
    "Look elsewhere if you can.",
    "Maybe I got a bad unit.",
    "Disappointed, honestly.",
    "Two stars for the effort.",
    "Expected more for the price.",
)


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def review(rng: random.Random, phrase: str, noun: str, rating: int) -> tuple[str, str]:
    """A product review ``(title, body)`` about ``phrase`` (the body contains the title, lower
    case, so a search for the title's words finds it)."""
    good = rating >= 4
    verdict = rng.choice(_VERDICTS_GOOD if good else _VERDICTS_BAD)
    aspect = rng.choice(_ASPECTS)
    title = rng.choice(
        (
            f"{phrase}, and {aspect} {verdict}",
            f"{phrase}: {aspect} {verdict}",
            f"{phrase} but {aspect} {verdict}" if good else f"{phrase} yet {aspect} {verdict}",
            f"{phrase}; this {noun.lower()} {verdict}",
        )
    )
    if rng.random() < 0.6:
        title += f" after {rng.choice(_DURATIONS)}"
    title = _first_upper(title)
    body = " ".join(
        [
            f"{rng.choice(('Honestly', 'Overall', 'In short', 'To be fair', 'After a while'))}: "
            f"{title.lower()}.",
            f"I have used this {noun.lower()} {rng.choice(_USES)} for {rng.choice(_DURATIONS)}.",
            f"{_first_upper(rng.choice(_ASPECTS))} {rng.choice(_VERDICTS_GOOD + _VERDICTS_BAD)}.",
            rng.choice(_CLOSERS_GOOD if good else _CLOSERS_BAD),
        ]
    )
    return title, body


_POST_SHAPES = (
    "What is your take on {thing} in {where}?",
    "I finally tried {thing} and {result}",
    "PSA: {thing} {result}",
    "Is it just me, or has {thing} changed since {when}?",
    "{When}, I started {activity}. Here is what happened",
    "Looking for advice on {thing} ({detail})",
    "Unpopular opinion: {thing} is {opinion}",
    "My {count}-{unit} journey with {thing}",
    "Does anyone else remember {thing} from {when}?",
    "Help: {thing} keeps {problem}",
    "[Discussion] {thing} versus {other}",
    "Just found out {thing} {result}",
)
_RESULTS = (
    "it was nothing like I expected",
    "it changed how I plan my week",
    "I can't go back",
    "it was a total mess",
    "my friends were shocked",
    "it saved me a lot of money",
    "it took three tries",
    "it finally clicked",
    "I learned a hard lesson",
    "it went better than planned",
)
_WHENS = (
    "last spring",
    "the pandemic",
    "college",
    "2019",
    "the last update",
    "high school",
    "my first job",
    "the winter break",
    "the move",
    "last summer",
)
_ACTIVITIES = (
    "keeping a journal",
    "waking up at six",
    "cooking every night",
    "running twice a week",
    "learning a language",
    "building a small garden",
    "reading before bed",
    "saving ten percent",
    "cycling to work",
    "taking photos daily",
)
_DETAILS = (
    "budget is tight",
    "complete beginner",
    "small apartment",
    "two kids at home",
    "night shifts",
    "no car",
    "living abroad",
    "first time",
    "long distance",
    "on a deadline",
)
_OPINIONS = (
    "overrated",
    "underrated",
    "better than it used to be",
    "mostly hype",
    "worth the effort",
    "harder than people admit",
    "the best part of the hobby",
    "a waste of time",
)
_PROBLEMS = (
    "breaking",
    "getting worse",
    "costing more",
    "taking longer",
    "confusing me",
    "falling apart",
    "going wrong at the end",
    "eating my evenings",
)
_UNITS = ("day", "week", "month", "year")


def post_title(rng: random.Random, thing: str, other: str, where: str) -> str:
    """A forum submission's title about ``thing`` (``other`` and ``where`` are fillers; an
    ``other`` equal to ``thing`` becomes "the alternatives", with no draw of its own)."""
    shape = rng.choice(_POST_SHAPES)
    return shape.format(
        thing=thing,
        other=other if other != thing else "the alternatives",
        where=where,
        result=rng.choice(_RESULTS),
        when=rng.choice(_WHENS),
        When=_first_upper(rng.choice(_WHENS)),
        activity=rng.choice(_ACTIVITIES),
        detail=rng.choice(_DETAILS),
        opinion=rng.choice(_OPINIONS),
        count=rng.randrange(2, 40),
        unit=rng.choice(_UNITS),
        problem=rng.choice(_PROBLEMS),
    )


def post_body(rng: random.Random, thing: str, where: str) -> str:
    """A submission's body: a few sentences about ``thing``."""
    sentences = [
        f"So {rng.choice(_WHENS)} I got into {thing}, mostly because of this forum.",
        f"The context: {rng.choice(_DETAILS)}, and I was {rng.choice(_ACTIVITIES)} at the time.",
        f"What surprised me is that {thing} {rng.choice(_RESULTS)}.",
        f"People in {where} keep saying it is {rng.choice(_OPINIONS)}; I'm not so sure.",
        f"After {rng.choice(_DURATIONS)} it keeps {rng.choice(_PROBLEMS)}, which I did not expect.",
        f"Anyone who tried this {rng.choice(_USES)}?",
        f"Edit: thanks for the {rng.randrange(3, 90)} replies so far.",
    ]
    return " ".join(rng.sample(sentences, rng.randrange(2, 5)))


_REPLY_SHAPES = (
    "{Agree}. {Story}",
    "{Story} {Question}",
    "{Story} {Advice}",
    "{Disagree}: {reason}. {Story}",
    "{Advice} {Story}",
    "{Agree}, but {reason}. {Question}",
    "{Story}",
    "Same here. {Story}",
    "{Disagree}: {reason}. {Question}",
)
_AGREE = ("Agreed", "This", "100% this", "Exactly my experience", "Came here to say this", "True")
_DISAGREE = ("Not really", "I don't think so", "Hard disagree", "Respectfully, no", "Eh")
_REASONS = (
    "it depends a lot on {thing}",
    "{thing} was never the problem",
    "the numbers don't back that up",
    "you are comparing two different things",
    "most people here started the same way",
    "that only works if you have the time",
    "{thing} is more expensive now",
    "the old advice about {thing} is outdated",
)
_STORIES = (
    "I tried {thing} {use} and it took me {duration} to get it right.",
    "My {relative} has done {thing} for {duration}; the trick is patience.",
    "When I started {activity}, {thing} was the first thing I dropped.",
    "We had the same issue with {thing} {when}.",
    "I spent {duration} on {thing} and still learned something from this thread.",
    "Back in {when2} nobody talked about {thing}, now it's everywhere.",
)
_ADVICE = (
    "Start small and keep notes.",
    "Check the pinned thread first.",
    "Don't buy anything until you've tried it for a week.",
    "Ask at your local library, they have guides.",
    "Set a budget and stick to it.",
    "Find a buddy, it helps a lot.",
    "Write down what you change each time.",
    "Give it a month before you decide.",
)
_QUESTIONS = (
    "How long did {thing} take you?",
    "Which part of {thing} was the hardest?",
    "Did you do {thing} alone or with a group?",
    "What would you change if you started {thing} again?",
    "Any source for that?",
    "Where did you hear about {thing}?",
    "Is {thing} worth it for a beginner?",
)
_RELATIVES = ("brother", "aunt", "roommate", "neighbour", "coworker", "dad", "cousin", "partner")


def reply(rng: random.Random, thing: str) -> str:
    """A comment on a submission about ``thing``."""
    fill = {
        "thing": thing,
        "use": rng.choice(_USES),
        "duration": rng.choice(_DURATIONS),
        "relative": rng.choice(_RELATIVES),
        "activity": rng.choice(_ACTIVITIES),
        "when": rng.choice(_WHENS),
        "when2": rng.choice(_WHENS),
    }
    parts = {
        "Agree": rng.choice(_AGREE),
        "Disagree": rng.choice(_DISAGREE),
        "reason": rng.choice(_REASONS).format(**fill),
        "Story": rng.choice(_STORIES).format(**fill),
        "Advice": rng.choice(_ADVICE),
        "Question": rng.choice(_QUESTIONS).format(**fill),
    }
    said = rng.choice(_REPLY_SHAPES).format(**parts)
    if rng.random() < 0.6:
        said += " " + rng.choice(_TAILS).format(n=rng.randrange(2, 40), **fill)
    return said


_TAILS = (
    "Took me {n} tries.",
    "({n} years in and still learning.)",
    "Edit: {n} upvotes, thanks!",
    "I'd give it {n} more days before deciding.",
    "Cost me about ${n} in the end.",
    "Our group has {n} members now.",
    "Still using it {when}.",
    "My {relative} says hi.",
    "Worked {use} too.",
)


_ISSUE_SHAPES = (
    "{Component} {fails} when {condition}",
    "{Component}: {fails} with {input}",
    "Add {feature} to {component}",
    "Document {feature} in {component}",
    "{Component} is slow on {input}",
    "Support {feature} in {component}",
    "Regression: {component} {fails} since {version}",
    "Refactor {component} to remove {smell}",
    "{Component} ignores {setting}",
    "Flaky test in {component} on {platform}",
)
_FAILS = (
    "crashes",
    "hangs",
    "returns the wrong result",
    "leaks memory",
    "throws an error",
    "loses data",
    "prints a warning",
    "renders blank",
)
_CONDITIONS = (
    "the config file is missing",
    "the path has spaces",
    "run twice in a row",
    "the network is offline",
    "the input is empty",
    "the cache is cold",
    "started from a symlink",
    "the locale is not English",
    "two users edit at once",
    "the window is resized",
)
_INPUTS = (
    "unicode file names",
    "large files",
    "nested directories",
    "an empty list",
    "Windows line endings",
    "very long lines",
    "a read-only disk",
    "duplicate keys",
)
_FEATURES = (
    "a dark theme",
    "keyboard shortcuts",
    "a --dry-run flag",
    "JSON output",
    "retry with backoff",
    "a progress bar",
    "type hints",
    "a plugin hook",
    "an export command",
    "screen reader labels",
    "a config schema",
    "parallel downloads",
)
_SMELLS = ("global state", "the duplicated parser", "dead code", "the old API", "magic numbers")
_SETTINGS = ("the timeout option", "the proxy setting", "NO_COLOR", "the log level", "--quiet")
_PLATFORMS = ("macOS", "Windows", "Alpine", "ARM64", "Python 3.12", "Node 20", "Safari")


def issue(rng: random.Random, components: list[str]) -> tuple[str, str]:
    """An issue ``(title, body)`` about one of a project's ``components``."""
    component = rng.choice(components)
    fill = {
        "component": component,
        "Component": _first_upper(component),
        "fails": rng.choice(_FAILS),
        "condition": rng.choice(_CONDITIONS),
        "input": rng.choice(_INPUTS),
        "feature": rng.choice(_FEATURES),
        "version": f"v{rng.randrange(0, 4)}.{rng.randrange(0, 20)}",
        "smell": rng.choice(_SMELLS),
        "setting": rng.choice(_SETTINGS),
        "platform": rng.choice(_PLATFORMS),
    }
    title = rng.choice(_ISSUE_SHAPES).format(**fill)
    body = (
        f"### Summary\n{title}.\n\n### Steps to reproduce\n1. Open {component}.\n"
        f"2. Use {fill['input']} while {fill['condition']}.\n3. Watch the output.\n\n"
        f"### Expected\nIt works as documented.\n\n### Environment\n{fill['platform']}, "
        f"{fill['version']}."
    )
    return title, body


def merge_request(
    rng: random.Random, branch: str, files: list[str], project: str = ""
) -> tuple[str, str]:
    """A merge request ``(title, description)`` for a feature branch of ``project`` touching
    ``files``."""
    what = branch.replace("-", " ")
    verb = rng.choice(("Add", "Implement", "Introduce", "Rework", "Fix", "Improve"))
    title = f"{verb} {what}" + (f" in {project}" if project else "")
    if rng.random() < 0.3:
        title = "Draft: " + title
    touched = ", ".join(f"`{f}`" for f in files[:3]) or "the sources"
    description = (
        f"## What does this MR do?\n{verb}s {what}; it touches {touched}.\n\n"
        f"## Why\n{rng.choice(files) if files else 'The build'} broke when "
        f"{rng.choice(_CONDITIONS)}.\n\n"
        f"Closes #{rng.randrange(1, 30)}."
    )
    return title, description


#: What a forum's submissions are about (by the forum's stem; others use the stem itself).
FORUM_THINGS: dict[str, tuple[str, ...]] = {
    "books": ("audiobooks", "a used bookshop haul", "annotating novels", "a reading challenge"),
    "gaming": ("speedrunning", "a retro console", "co-op campaigns", "a controller mod"),
    "movies": ("director's cuts", "a midnight screening", "film scores", "a trilogy rewatch"),
    "science": ("peer review", "a home microscope", "citizen science", "a lab notebook"),
    "cooking": ("cast iron pans", "meal prep", "a sourdough starter", "knife sharpening"),
    "travel": ("overnight trains", "a carry-on only trip", "hostels", "travel insurance"),
    "music": ("vinyl records", "a home studio", "learning scales", "live sessions"),
    "diy": ("a workbench build", "epoxy resin", "a shelf project", "wall anchors"),
    "space": ("a backyard telescope", "rocket launches", "satellite tracking", "moon photos"),
    "history": ("old maps", "a family archive", "medieval trade", "war diaries"),
    "technology": ("a home server", "mechanical keyboards", "e-ink tablets", "password managers"),
    "photography": ("a prime lens", "film cameras", "night shots", "photo editing"),
    "fitness": ("kettlebells", "a rowing machine", "mobility drills", "a step counter"),
    "gardening": ("raised beds", "tomato blight", "composting", "a balcony herb box"),
    "personalfinance": ("an emergency fund", "index funds", "a spending tracker", "rent vs buy"),
    "art": ("gouache", "a sketchbook habit", "figure drawing", "linocut prints"),
    "programming": ("code review", "a side project", "unit tests", "a new text editor"),
    "cycling": ("a gravel bike", "tubeless tyres", "winter commuting", "a bike fit"),
    "running": ("a first marathon", "trail shoes", "tempo runs", "a running club"),
    "coffee": ("a hand grinder", "pour-over", "espresso at home", "a local roaster"),
    "tea": ("gongfu brewing", "matcha", "a loose-leaf sampler", "cold brew tea"),
    "pets": ("a rescue dog", "cat trees", "a new aquarium", "pet insurance"),
    "cars": ("an oil change", "winter tyres", "a used hatchback", "dash cams"),
    "chess": ("the Sicilian", "blitz games", "endgame studies", "a chess club"),
    "anime": ("a long-running series", "seasonal picks", "manga adaptations", "an art book"),
    "linux": ("a tiling window manager", "dotfiles", "a distro hop", "systemd timers"),
    "python": ("type hints", "a packaging tool", "async code", "a data script"),
    "javascript": ("a bundler", "a state library", "TypeScript", "web components"),
    "woodworking": ("hand planes", "a dovetail joint", "walnut slabs", "a router table"),
    "knitting": ("a first sweater", "sock yarn", "colourwork", "a blocking mat"),
    "languages": ("flash cards", "a language exchange", "grammar drills", "immersion"),
    "boardgames": ("a legacy campaign", "solo play", "a game night", "card sleeves"),
}
_GENERIC_THINGS = ("a beginner setup", "the wiki", "a weekly thread", "a meetup", "the basics")


def forum_things(forum: str) -> tuple[str, ...]:
    """The subjects a forum's submissions are about (its stem's, plus a few general ones)."""
    for suffix in ("_talk", "_club", "_help"):
        if forum.endswith(suffix):
            forum = forum[: -len(suffix)]
            break
    article = "an" if forum[0] in "aeiou" else "a"
    own = FORUM_THINGS.get(forum, (f"{forum} tips", f"{article} {forum} question", f"{forum} news"))
    return own + _GENERIC_THINGS


def uses(rng: random.Random, noun: str, leaf: str) -> str:
    """The sentence of a product's description that says what it is for (two of its noun's,
    else its leaf category's, needs: :data:`.vocab.USES`)."""
    kind, needs = USES.get(noun) or USES[leaf]
    a, b = rng.sample(needs, 2)
    return rng.choice(USE_SHAPES[kind]).format(a=a, b=b)
