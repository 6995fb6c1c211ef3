"""WebArena's evaluators on passing and failing answers (no browser needed)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from agentgym_envs.envs.webarena import evaluators as ev


def _config(eval_types, **eval_):
    return {"intent": "q", "eval": {"eval_types": eval_types, **eval_}}


class _Page:
    def __init__(self, url, content="", values=None):
        self.url, self._content, self.values, self.visited = url, content, values or {}, []

    def current_url(self):
        return self.url

    def goto(self, url):
        self.visited.append(url)
        self.url = url

    def content(self):
        return self._content

    def evaluate(self, expression):
        if expression not in self.values:
            raise RuntimeError("TypeError: null has no properties")
        return self.values[expression]


@pytest.mark.parametrize(
    ("refs", "answer", "score"),
    [
        ({"exact_match": "Quest Lumaflex Band"}, '"quest lumaflex band"', 1.0),
        ({"exact_match": "Quest Lumaflex Band"}, "Quest Lumaflex Band XL", 0.0),
        ({"must_include": ["jaw bruxism", "mouth guard"]}, "Jaw Bruxism and a mouth guard", 1.0),
        ({"must_include": ["jaw bruxism", "mouth guard"]}, "jaw bruxism", 0.0),
        ({"must_include": ["0"]}, "10", 0.0),
        ({"must_include": ["0"]}, "There are 0 reviews", 1.0),
        ({"fuzzy_match": "N/A"}, "n/a", 1.0),
        ({"fuzzy_match": "N/A"}, "42", 0.0),
        ({"fuzzy_match": ["No, it is open"]}, "no it is still open", 1.0),
        ({"fuzzy_match": ["No, it is open"]}, "yes", 0.0),
        # the fallback reads a number glued to its unit, and a unit's spellings, as one reading
        (
            {"fuzzy_match": ["driving: 4min", "walking: 1h 5min"]},
            "driving 4 min, walking 1 hour 5 minutes",
            1.0,
        ),
        ({"fuzzy_match": ["14 minutes"]}, "14min", 1.0),
        ({"fuzzy_match": ["14 minutes"]}, "15 min", 0.0),
        ({"fuzzy_match": ["4min"]}, "0:04", 0.0),
    ],
)
def test_string_match(refs, answer, score):
    config = _config(["string_match"], reference_answers=refs, string_note="")
    assert ev.evaluate(config, answer, _Page("http://x/")) == score


def test_url_match_gold_in_pred_with_query():
    config = _config(["url_match"], reference_url="http://h:1/a/search?query=cmu%20lab")
    assert ev.evaluate(config, "", _Page("http://h:1/a/search/?query=cmu lab&x=1")) == 1.0
    assert ev.evaluate(config, "", _Page("http://h:1/a/search?query=other")) == 0.0
    assert ev.evaluate(config, "", _Page("http://h:1/b/search?query=cmu lab")) == 0.0
    either = _config(["url_match"], reference_url="http://h:1/x |OR| http://h:1/y")
    assert ev.evaluate(either, "", _Page("http://h:1/y/")) == 1.0


def test_program_html_locators_and_or_options():
    loc = 'document.querySelector(".user-bio__biography").outerText'
    config = _config(
        ["program_html"],
        program_html=[
            {
                "url": "http://h/user/me",
                "locator": loc,
                "required_contents": {"exact_match": "I am a robot"},
            },
            {
                "url": "last",
                "locator": "",
                "required_contents": {"must_include": ["robot |OR| android", "&amp; co"]},
            },
        ],
    )
    good = _Page("http://h/", "<p>robot &amp;amp; co</p>", {loc: "I am a robot"})
    assert ev.evaluate(config, "", good) == 1.0
    assert good.visited == ["http://h/user/me"]
    assert ev.evaluate(config, "", _Page("http://h/", "<p>robot</p>", {loc: "I am a robot"})) == 0
    # a failing locator scores as an empty string, not an exception
    assert ev.evaluate(config, "", _Page("http://h/", "robot & co")) == 0.0


def test_program_html_helpers_and_missing_stop():
    config = _config(
        ["program_html"],
        program_html=[
            {
                "url": "func:post_url('__last_url__')",
                "locator": "func:author('SKU1')",
                "required_contents": {"must_include": ["Emma"]},
            }
        ],
    )
    helpers = {"post_url": lambda u: u + "/post", "author": lambda sku: f"Emma for {sku}"}
    page = _Page("http://h/f/x")
    assert ev.evaluate(config, "", page, helpers) == 1.0
    assert page.visited == ["http://h/f/x/post"]
    assert ev.evaluate(config, "", _Page("http://h/f/x"), {}) == 0.0
    assert ev.evaluate(config, None, page, helpers) == 0.0


class _Judge(BaseHTTPRequestHandler):
    reply = "correct"

    def do_POST(self):
        length = int(self.headers["Content-Length"])
        json.loads(self.rfile.read(length))
        body = json.dumps({"choices": [{"message": {"content": self.reply}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def judge_url():
    server = HTTPServer(("127.0.0.1", 0), _Judge)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize(
    ("reply", "score"), [("Correct.", 1.0), ("partially correct", 0.0), ("incorrect", 0.0)]
)
def test_llm_judge_reads_the_verdict(judge_url, reply, score):
    _Judge.reply = reply
    config = _config(["string_match"], reference_answers={"fuzzy_match": ["blue"]})
    judge = ev.LLMJudge(base_url=judge_url, model="m")
    assert ev.evaluate(config, "something else", _Page("http://x/"), judge=judge) == score


def test_llm_judge_unreachable_falls_back_to_the_deterministic_match():
    judge = ev.LLMJudge(base_url="http://127.0.0.1:9/v1", timeout=2)
    config = _config(["string_match"], reference_answers={"fuzzy_match": ["No, it is open"]})
    assert ev.evaluate(config, "no, it's still open", _Page("http://x/"), judge=judge) == 1.0
    assert ev.evaluate(config, "closed", _Page("http://x/"), judge=judge) == 0.0


def test_fallback_judges_each_item_of_a_list_reference_against_the_whole_list():
    repos = ["byteblaze/cloud-to-butt", "primer/logger-mail", "vinta/syntax", "metis/notes-cache"]
    config = {"eval": {"reference_answers": {"fuzzy_match": repos}}, "agentgym_solution": []}
    assert ev.string_match(config, ", ".join(repos), None) == 1.0
    assert ev.string_match(config, ", ".join(repos[:3]), None) == 0.0  # one item missing
    dump = ", ".join(repos) + " " + " ".join(f"word{i}" for i in range(40))
    assert ev.string_match(config, dump, None) == 0.0  # still no dump of the page
