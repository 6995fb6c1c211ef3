"""The map site: search and directions served over HTTP agree with networkx's own shortest
paths on the city's road graph; the city is the same for the same seed."""

from __future__ import annotations

import itertools
import re

import httpx
import networkx as nx
import pytest

from agentgym_envs.envs.webarena.sites import server
from agentgym_envs.envs.webarena.sites.mapdata import (
    BIKE_SPEED,
    CAR_SPEED,
    FOOT_SPEED,
    City,
    city,
    haversine,
)


@pytest.fixture(scope="module")
def base() -> str:
    return server().url("map")


def _reference_route(graph: nx.DiGraph, a: int, b: int, mode: str) -> tuple[float, float]:
    """Meters and seconds of the fastest path, computed here from the edges' attributes."""

    def seconds(u, v, e):
        if e["kind"] == "motorway" and mode != "car":
            return None
        if mode == "car" and (e["kind"] in ("footway", "cycleway") or not e["car"]):
            return None
        if mode == "bike" and e["kind"] == "footway":
            return None
        speed = {"car": CAR_SPEED.get(e["kind"]), "bike": BIKE_SPEED, "foot": FOOT_SPEED}[mode]
        return e["length"] * 3.6 / speed

    path = nx.shortest_path(graph, a, b, weight=seconds, method="dijkstra")
    edges = [graph.edges[u, v] for u, v in itertools.pairwise(path)]
    return sum(e["length"] for e in edges), sum(seconds(None, None, e) for e in edges)


@pytest.mark.parametrize("mode", ["car", "bike", "foot"])
def test_directions_page_shows_networkx_shortest_path(base, mode):
    c = city()
    engine = {"car": "fossgis_osrm_car", "bike": "fossgis_osrm_bike", "foot": "fossgis_osrm_foot"}
    pairs = [(c.places[i], c.places[-1 - 3 * i]) for i in range(0, 60, 12)]
    with httpx.Client(base_url=base, follow_redirects=True) as client:
        for a, b in pairs:
            meters, seconds = _reference_route(c.graph, a.node, b.node, mode)
            page = client.get(
                "/directions/go",
                params={"route_from": a.name, "route_to": b.name, "engine": engine[mode]},
            )
            assert page.status_code == 200
            assert f"route={a.coords}%3B{b.coords}".replace(",", "%2C") in str(page.url)
            shown = re.search(r"Distance: ([\d.]+)(k?m)\. Time: (\d+):(\d\d)\.", page.text)
            assert shown, page.text[-2000:]
            value = float(shown.group(1)) * (1000 if shown.group(2) == "km" else 1)
            assert abs(value - meters) <= (50 if shown.group(2) == "km" else 1)
            minutes = int(shown.group(3)) * 60 + int(shown.group(4))
            assert abs(minutes - seconds / 60) <= 0.5
            assert f'value="{a.display_name}"'.replace("'", "&#x27;") in page.text
            assert 'class="routing_engines"' in page.text


def test_modes_differ_where_the_graph_says_so():
    c = city()
    a, b = c.places[0], c.places[200]
    car, foot = c.route(a, b, "car"), c.route(a, b, "foot")
    assert foot.seconds > car.seconds
    assert all(
        c.graph.edges[u, v]["kind"] != "motorway" for u, v in zip(foot.nodes, foot.nodes[1:])
    )


def test_search_near_a_place_lists_that_category_nearest_first(base):
    c = city()
    anchor = next(p for p in c.places if p.category == "museum")
    with httpx.Client(base_url=base) as client:
        page = client.get("/search", params={"query": f"restaurants near {anchor.name}"})
    names = re.findall(r'<a href="/node/(\d+)">', page.text)
    found = [c.place_by_id(int(n)) for n in names]
    assert found and all(p.category == "restaurant" for p in found)
    far = [haversine(anchor.lat, anchor.lon, p.lat, p.lon) for p in found]
    assert far == sorted(far)
    everyone = [p for p in c.places if p.category == "restaurant"]
    assert far[0] == min(haversine(anchor.lat, anchor.lon, p.lat, p.lon) for p in everyone)


def test_a_place_page_and_the_map_image(base):
    c = city()
    place = c.places[5]
    with httpx.Client(base_url=base) as client:
        page = client.get(f"/node/{place.id}")
        image = client.get("/render.svg", params={"markers": str(place.id)})
        home = client.get(server().url("homepage") + "/")
    assert place.address.split(",")[0] in page.text and "Directions from here" in page.text
    assert image.headers["content-type"].startswith("image/svg+xml")
    assert image.text.count("<path") > 6 and place.name.replace("'", "&#x27;") in image.text
    assert server().url("map") in home.text


def test_the_city_is_the_same_for_the_same_seed():
    one, two = City(0), City(0)
    assert [(p.name, p.lat, p.lon, p.node) for p in one.places] == [
        (p.name, p.lat, p.lon, p.node) for p in two.places
    ]
    assert sorted(one.graph.edges(data=True)) == sorted(two.graph.edges(data=True))
    assert len({p.name for p in one.places}) == len(one.places) >= 300
    assert [p.name for p in City(1).places] != [p.name for p in one.places]
