"""Academia's offline backend: a generated citation network and co-authorship network.

AgentBoard's Academia loads pickled DBLP/AMiner graphs that are not publicly reachable. Here a
fixed seed generates the same two graphs on every machine:

* PaperNet -- papers (title ``-> {authors, year, venue, n_citation, keywords, doc_type}``),
  each citing earlier papers; a paper's neighbours are the papers it cites;
* AuthorNet -- authors (``name -> {name, org}``) joined when they wrote a paper together; the
  edge carries ``collaborative_papers``.

Research groups share an organisation and write together; junior authors appear on one to
three papers with one group, so both dense and sparse neighbourhoods exist. As in AgentBoard's
data, a name held by two people carries a suffix (``Wei Zhang_2``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

SEED = 20240611

_FIRST = [
    "Wei",
    "Li",
    "Jing",
    "Yang",
    "Hao",
    "Xin",
    "Ming",
    "Yu",
    "Fei",
    "Lei",
    "Anna",
    "Marco",
    "Sofia",
    "Lukas",
    "Elena",
    "Jonas",
    "Clara",
    "Mateo",
    "Fadi",
    "Florian",
    "Naser",
    "Amir",
    "Sara",
    "David",
    "Maria",
    "Ivan",
    "Olga",
    "Kenji",
    "Aiko",
    "Hyun",
    "Ji-woo",
    "Ravi",
    "Priya",
    "Arjun",
    "Lazhar",
    "Fred",
    "Justin",
    "Ali",
    "Sandeep",
    "Emma",
    "Noah",
    "Julia",
    "Tomas",
    "Ines",
    "Pablo",
    "Chiara",
    "Henrik",
    "Astrid",
    "Omar",
    "Leila",
]
_LAST = [
    "Zhang",
    "Wang",
    "Liu",
    "Chen",
    "Yang",
    "Huang",
    "Zhao",
    "Wu",
    "Zhou",
    "Xu",
    "Rossi",
    "Muller",
    "Schmidt",
    "Garcia",
    "Lopez",
    "Kirchbuchner",
    "Boutros",
    "Damer",
    "Kuijper",
    "Labiod",
    "Nadif",
    "Vakilian",
    "Silwal",
    "Tanaka",
    "Suzuki",
    "Kim",
    "Park",
    "Patel",
    "Gupta",
    "Singh",
    "Ivanova",
    "Petrov",
    "Novak",
    "Jensen",
    "Nielsen",
    "Santos",
    "Costa",
    "Moreau",
    "Laurent",
    "Fischer",
    "Weber",
    "Cohen",
    "Levi",
    "Haddad",
    "Rahman",
]
ORGS = [
    "Tsinghua University",
    "Peking University",
    "Fraunhofer IGD",
    "Technical University of Darmstadt",
    "Massachusetts Institute of Technology",
    "Stanford University",
    "Carnegie Mellon University",
    "University of Oxford",
    "ETH Zurich",
    "University of Tokyo",
    "KAIST",
    "Indian Institute of Science",
    "Universite Paris Cite",
    "Max Planck Institute for Informatics",
    "University of Toronto",
    "National University of Singapore",
    "University of Amsterdam",
    "EPFL",
    "University of Washington",
    "Microsoft Research",
    "Google Research",
    "HKUST",
    "University of Edinburgh",
    "Sorbonne University",
]
_METHODS = [
    "Graph Neural Networks",
    "Contrastive Learning",
    "Efficient Graph Convolution",
    "Transformer Models",
    "Reinforcement Learning",
    "Federated Learning",
    "Sparse Attention",
    "Diffusion Models",
    "Active Learning",
    "Meta-Learning",
    "Knowledge Distillation",
    "Variational Inference",
    "Spectral Clustering",
    "Self-Supervised Pretraining",
    "Bayesian Optimization",
    "Low-Rank Adaptation",
    "Curriculum Learning",
    "Mixture of Experts",
    "Neural Architecture Search",
    "Causal Inference",
    "Prompt Tuning",
    "Label Propagation",
    "Optimal Transport",
    "Learning-Augmented Algorithms",
    "Masked Autoencoders",
]
_PROBLEMS = [
    "Traffic Forecasting",
    "Face Recognition",
    "Joint Node Representation Learning and Clustering",
    "Machine Translation",
    "Protein Structure Prediction",
    "Recommender Systems",
    "Anomaly Detection",
    "Document Clustering",
    "Speech Recognition",
    "Question Answering",
    "Image Segmentation",
    "Morphing Attack Detection",
    "Streaming Algorithms",
    "Time Series Classification",
    "Code Generation",
    "Autonomous Driving",
    "Medical Image Analysis",
    "Entity Linking",
    "Robot Manipulation",
    "Fairness in Ranking",
    "Community Detection",
    "Sentiment Analysis",
    "Molecule Generation",
]
VENUES = [
    ("NeurIPS", "Conference"),
    ("ICML", "Conference"),
    ("ICLR", "Conference"),
    ("AAAI", "Conference"),
    ("IJCAI", "Conference"),
    ("ACL", "Conference"),
    ("EMNLP", "Conference"),
    ("CVPR", "Conference"),
    ("KDD", "Conference"),
    ("WWW", "Conference"),
    ("SODA", "Conference"),
    ("IJCB", "Conference"),
    ("IEEE Trans. Pattern Anal. Mach. Intell.", "Journal"),
    ("Pattern Recognition", "Journal"),
    ("J. Mach. Learn. Res.", "Journal"),
    ("IEEE Access", "Journal"),
]
KEYWORDS = [
    "graph learning",
    "clustering",
    "deep learning",
    "face recognition",
    "biometrics",
    "optimization",
    "natural language processing",
    "computer vision",
    "reinforcement learning",
    "privacy",
    "robustness",
    "representation learning",
    "algorithms",
    "time series",
    "recommendation",
    "generative models",
]


@dataclass(frozen=True)
class Paper:
    title: str
    authors: tuple[str, ...]
    year: int
    venue: str
    n_citation: int
    keywords: tuple[str, ...]
    doc_type: str


class Academia:
    """Both graphs as adjacency maps with node and edge attributes."""

    def __init__(self, seed: int = SEED) -> None:
        rng = random.Random(seed)
        raw = [f"{f} {last}" for f in _FIRST for last in _LAST]
        rng.shuffle(raw)
        base_names = raw[:330]
        # a handful of homonyms, disambiguated as AgentBoard does
        names = base_names[:300] + [f"{n}_2" for n in rng.sample(base_names[:300], 12)]
        rng.shuffle(names)
        self.orgs: dict[str, str] = {}
        groups: list[list[str]] = []
        seniors, juniors = names[:240], names[240:]
        for g in range(24):
            members = seniors[g * 10 : (g + 1) * 10]
            groups.append(members)
            for m in members:
                self.orgs[m] = ORGS[g] if rng.random() < 0.85 else rng.choice(ORGS)
        titles = rng.sample([f"{m} for {p}." for m in _METHODS for p in _PROBLEMS], 480)
        self.papers: dict[str, Paper] = {}
        self.cites: dict[str, tuple[str, ...]] = {}
        junior_slots = {j: rng.randint(1, 3) for j in juniors}
        junior_group = {j: rng.randrange(24) for j in juniors}
        for j in juniors:
            self.orgs[j] = ORGS[junior_group[j]] if rng.random() < 0.7 else rng.choice(ORGS)
        years = sorted(rng.randint(2008, 2023) for _ in titles)
        order: list[str] = []
        for title, year in zip(titles, years):
            g = rng.randrange(24)
            authors = rng.sample(groups[g], rng.randint(1, 3))
            if rng.random() < 0.25:
                authors.append(rng.choice(seniors))
            open_juniors = [j for j in juniors if junior_group[j] == g and junior_slots[j] > 0]
            if open_juniors and rng.random() < 0.6:
                j = rng.choice(open_juniors)
                junior_slots[j] -= 1
                authors.insert(0, j)
            authors = list(dict.fromkeys(authors))
            if len(authors) < 2:
                authors.append(rng.choice([m for m in groups[g] if m not in authors]))
            venue, doc_type = rng.choice(VENUES)
            age = 2024 - year
            self.papers[title] = Paper(
                title,
                tuple(authors),
                year,
                venue,
                int(rng.lognormvariate(1.2, 1.1) * age),
                tuple(rng.sample(KEYWORDS, rng.randint(1, 4))),
                doc_type,
            )
            earlier = [t for t in order if self.papers[t].year < year]
            self.cites[title] = tuple(rng.sample(earlier, min(len(earlier), rng.randint(0, 6))))
            order.append(title)
        self.collab: dict[str, dict[str, list[str]]] = {}
        for paper in self.papers.values():
            for a in paper.authors:
                self.collab.setdefault(a, {})
                for b in paper.authors:
                    if a != b:
                        self.collab[a].setdefault(b, []).append(paper.title)
        self.authors = sorted(self.collab)
        self.titles = sorted(self.papers)

    def author_papers(self, name: str) -> list[str]:
        return sorted({t for ts in self.collab[name].values() for t in ts})


@lru_cache(maxsize=1)
def academia() -> Academia:
    """The shared graphs (built on first use)."""
    return Academia()
