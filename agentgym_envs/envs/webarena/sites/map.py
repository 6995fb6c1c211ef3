"""The map (WebArena's ``map``, an OpenStreetMap with routing): place search, a map view with
markers, place pages and directions by car, bike or foot, on :mod:`.mapdata`'s generated city.

Pages use OpenStreetMap's addresses and form names, which WebArena's map tasks check:
``/search?query=restaurants near X``, ``/node/<id>``, and
``/directions?engine=fossgis_osrm_car&route=lat,lon;lat,lon`` with the form's ``route_from`` /
``route_to`` inputs and its ``select.routing_engines`` (Bicycle, Car, Foot: index 1 is the
car). The map is an SVG the server draws (``/render.svg``; no tiles: the network is closed);
the zoom buttons redraw it in the page's own script. Read only: no database.
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from agentgym_envs.envs.webarena.sites.common import esc, qs, render, site_app
from agentgym_envs.envs.webarena.sites.mapdata import (
    CITY,
    ENGINE_LABELS,
    ENGINES,
    City,
    Place,
    Route,
    city,
    format_distance,
    haversine,
)

TITLE = "OpenStreetMap"
ROAD_STYLE = {
    "motorway": ("#e892a2", 5),
    "primary": ("#fcd6a4", 4),
    "secondary": ("#f7fabf", 3),
    "residential": ("#ffffff", 2),
    "cycleway": ("#7b7bff", 1.2),
    "footway": ("#fa8072", 1),
}
CATEGORY_COLOR = {
    "restaurant": "#d35400",
    "cafe": "#8e5a2b",
    "hotel": "#2c3e91",
    "museum": "#7d3c98",
    "university": "#1f618d",
    "library": "#117864",
    "park": "#1e8449",
    "hospital": "#c0392b",
    "pharmacy": "#16a085",
    "supermarket": "#b9770e",
    "bank": "#34495e",
    "fuel": "#616a6b",
    "school": "#2874a6",
    "bus_station": "#2e86c1",
    "bar": "#a04000",
    "bakery": "#ca6f1e",
    "cinema": "#6c3483",
    "parking": "#5d6d7e",
    "neighbourhood": "#7f8c8d",
    "national_park": "#145a32",
    "stadium": "#922b21",
}
#: The OpenStreetMap key of a category's tag (``amenity`` unless listed).
TAG_KEY = {"neighbourhood": "place", "national_park": "boundary", "stadium": "leisure"}

router = APIRouter()

_SCRIPT = """
document.querySelectorAll('.map-controls button').forEach(function (b) {
  b.addEventListener('click', function () {
    var box = document.getElementById('map-image');
    var z = parseInt(box.dataset.zoom || '0', 10) + (b.dataset.zoom === 'in' ? 1 : -1);
    z = Math.max(0, Math.min(4, z));
    box.dataset.zoom = z;
    fetch('/render.svg?' + box.dataset.query + '&zoom=' + z).then(function (r) {
      return r.text();
    }).then(function (svg) {
      box.innerHTML = svg;
      document.getElementById('zoom-level').textContent = 'Zoom ' + z;
    });
  });
});
"""


#: The mode line under the directions form follows the routing engine's selector.
_ENGINE_SCRIPT = """
document.querySelector('select.routing_engines').addEventListener('change', function (e) {
  var select = e.target;
  document.getElementById('engine-label').textContent = select.options[select.selectedIndex].text;
});
"""


def _header(query: str = "") -> str:
    return (
        '<nav class="osm-header"><a class="logo" href="/">OpenStreetMap</a>'
        '<form class="search_form" role="search" action="/search" method="get">'
        f'<input id="query" name="query" type="text" value="{esc(query)}" aria-label="Search" '
        'placeholder="Search" autocomplete="off">'
        '<button type="submit" class="search_button">Go</button>'
        '<a class="directions-link" href="/directions" title="Find directions between two points">'
        "Find directions between two points</a></form>"
        '<ul class="secondary-nav"><li><a href="/history">History</a></li>'
        '<li><a href="/export">Export</a></li><li><a href="/about">About</a></li></ul></nav>'
    )


def _map(markers: list[Place], route: Route | None = None, engine: str = "") -> str:
    params = {"markers": ",".join(str(p.id) for p in markers[:20])}
    if route is not None:
        params["route"] = ",".join(str(n) for n in route.nodes)
    label = f"Map of {CITY}" + (
        f" with {len(markers)} marker{'s' if len(markers) != 1 else ''}" if markers else ""
    )
    return (
        '<div class="map-pane"><div class="map-controls" role="toolbar" aria-label="Map controls">'
        '<button type="button" data-zoom="in" title="Zoom In">+</button>'
        '<button type="button" data-zoom="out" title="Zoom Out">−</button>'
        '<span id="zoom-level">Zoom 0</span></div>'
        f'<div id="map-image" data-query="{esc(qs(**params))}" data-zoom="0">'
        f"{svg(city(), markers[:20], list(route.nodes) if route else [], 0, label)}</div></div>"
        f"<script>{_SCRIPT}</script>"
    )


def _page(title: str, sidebar: str, markers: list[Place], query: str = "", route=None):
    body = (
        '<div id="content" class="map-layout"><aside id="sidebar">'
        f'<div id="sidebar_content">{sidebar}</div></aside>{_map(markers, route)}</div>'
    )
    return render(title, body, _header(query), css="map")


def _place_item(place: Place, anchor: Place | None = None) -> str:
    far = ""
    if anchor is not None:
        far = f" · {format_distance(haversine(anchor.lat, anchor.lon, place.lat, place.lon))} away"
    return (
        f'<li class="search_results_entry"><span class="category">'
        f"{esc(place.category.replace('_', ' ').title())}</span> "
        f'<a href="/node/{place.id}">{esc(place.name)}</a>'
        f'<div class="address">{esc(place.address)}{far}</div></li>'
    )


@router.get("/")
def index(mlat: float | None = None, mlon: float | None = None):
    c = city()
    marked = [p for p in [c.at(f"{mlat},{mlon}")] if p] if mlat is not None else []
    sidebar = (
        f"<h1>Welcome to OpenStreetMap!</h1><p>OpenStreetMap is a map of {CITY}, created by "
        "people like you and free to use. Search for a place, open it, or find directions "
        "between two places by car, bike or foot.</p>"
        '<h2>Places to start</h2><ul class="search_results">'
        + "".join(_place_item(p) for p in c.home_places())
        + "</ul>"
    )
    return _page(TITLE, sidebar, marked)


@router.get("/search")
def search(query: str = ""):
    c = city()
    found = c.search(query) if query.strip() else []
    anchor = None
    if " near " in query.lower():
        anchor_name = query.lower().split(" near ", 1)[1]
        hits = c.search(anchor_name)
        anchor = hits[0] if hits else None
    items = "".join(_place_item(p, anchor) for p in found[:50])
    sidebar = (
        f'<h2 class="search-title">Search Results</h2><p class="results-for">Results for '
        f'"{esc(query)}" from {CITY} Nominatim</p>'
        + (f'<ul class="search_results">{items}</ul>' if found else "<p>No results found</p>")
    )
    title = f"Search: {query} | {TITLE}" if query else TITLE
    return _page(title, sidebar, found, query)


@router.get("/node/{place_id}")
def node(place_id: int):
    c = city()
    try:
        place = c.place_by_id(place_id)
    except KeyError:
        return _page(f"Node: {place_id} | {TITLE}", "<h2>Node not found</h2>", [])
    tags = {
        "name": place.name,
        TAG_KEY.get(place.category, "amenity"): place.category,
        "addr:full": place.address,
        "addr:city": CITY,
        "addr:postcode": place.postcode,
        "phone": place.phone,
        "website": place.website,
        "opening_hours": place.opening_hours,
    }
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in tags.items() if v)
    near = c.nearest(place.category, place, 3)
    sidebar = (
        f'<h2>Node: {esc(place.name)} ({place.id})</h2><table class="browse-tag-list">'
        f"<caption>Tags</caption>{rows}</table>"
        f'<p class="coords">Location: <span class="latitude">{place.lat:.5f}</span>, '
        f'<span class="longitude">{place.lon:.5f}</span></p>'
        f'<p><a href="/directions?{qs(**{"from": place.name})}">Directions from here</a> · '
        f'<a href="/directions?{qs(to=place.name)}">Directions to here</a></p>'
        "<h3>Nearby of the same kind</h3><ul class='search_results'>"
        + "".join(_place_item(p, place) for p in near)
        + "</ul>"
    )
    return _page(f"Node: {place.name} | {TITLE}", sidebar, [place])


def _resolve(c: City, text: str) -> Place | None:
    text = text.strip()
    if not text:
        return None
    at = c.at(text)
    if at is not None:
        return at
    hits = c.search(text)
    return hits[0] if hits else None


@router.get("/directions")
def directions(request: Request, engine: str = "fossgis_osrm_car", route: str = ""):
    """OpenStreetMap's directions URL (``route=lat,lon;lat,lon``); ``from``/``to`` (place
    names) prefill the form, as the place pages' links do."""
    params = request.query_params
    return _directions(engine, route, params.get("from", ""), params.get("to", ""))


def _directions(engine: str, route: str, from_text: str, to_text: str):
    c = city()
    if engine not in ENGINES:
        engine = "fossgis_osrm_car"
    start = end = None
    if route and ";" in route:
        first, second = route.split(";", 1)
        start, end = c.at(first), c.at(second)
    start = start or _resolve(c, from_text)
    end = end or _resolve(c, to_text)
    from_value = start.display_name if start else from_text
    to_value = end.display_name if end else to_text
    options = "".join(
        f'<option value="{key}"{" selected" if key == engine else ""}>{esc(label)}</option>'
        for key, label in ENGINE_LABELS.items()
    )
    form = (
        '<form class="directions_form" action="/directions/go" method="get">'
        f'<label>From <input name="route_from" type="text" value="{esc(from_value)}" '
        'placeholder="From" aria-label="From"></label>'
        f'<label>To <input name="route_to" type="text" value="{esc(to_value)}" '
        'placeholder="To" aria-label="To"></label>'
        f'<select class="routing_engines" name="engine" aria-label="Routing engine">{options}'
        '</select><button type="submit" aria-label="Get directions">Go</button>'
        f'<p class="engine-note">Mode: <span id="engine-label">{esc(ENGINE_LABELS[engine])}'
        "</span></p>"
    )
    if start is not None and end is not None:
        back = qs(engine=engine, route=f"{end.coords};{start.coords}")
        form += (
            f'<a class="reverse_directions" href="/directions?{esc(back)}">Reverse Directions</a>'
        )
    form += "</form>"
    found: Route | None = None
    result = ""
    if (from_text or to_text or route) and (start is None or end is None):
        missing = "start" if start is None else "destination"
        result = f'<p class="error" role="alert">Could not find the {missing} of the route.</p>'
    elif start is not None and end is not None:
        found = c.route(start, end, ENGINES[engine])
        steps = "".join(
            f"<tr><td>{n}.</td><td>{'Start on' if n == 1 else 'Continue onto'} "
            f"{esc(name)}</td><td>{format_distance(meters)}</td></tr>"
            for n, (name, meters) in enumerate(found.steps, 1)
        )
        result = (
            f'<div id="routing_summary"><h2>Directions</h2><p>From {esc(start.name)} to '
            f"{esc(end.name)} by {ENGINES[engine]}.</p>"
            f"<p>Distance: {found.distance_text}. Time: {found.time_text}.</p></div>"
            f'<table class="turn-by-turn"><caption>Turn-by-turn</caption>{steps}'
            f"<tr><td>{len(found.steps) + 1}.</td><td>Reach destination</td><td></td></tr>"
            "</table>"
        )
    markers = [p for p in (start, end) if p is not None]
    title = f"Directions | {TITLE}"
    return _page(title, form + result + f"<script>{_ENGINE_SCRIPT}</script>", markers, route=found)


@router.get("/directions/go")
def directions_go(route_from: str = "", route_to: str = "", engine: str = "fossgis_osrm_car"):
    """The form's submit: places by name (or ``lat,lon``) to OpenStreetMap's directions URL."""
    c = city()
    start, end = _resolve(c, route_from), _resolve(c, route_to)
    if start is None or end is None:
        return _directions(engine, "", route_from, route_to)
    url = "/directions?" + qs(engine=engine, route=f"{start.coords};{end.coords}")
    return RedirectResponse(url, status_code=303)


@router.get("/render.svg")
def render_svg(markers: str = "", route: str = "", zoom: int = 0):
    """The map as SVG: every street, the route (graph node ids) and numbered markers."""
    c = city()
    marked = []
    for part in markers.split(","):
        if part.strip().isdigit():
            try:
                marked.append(c.place_by_id(int(part)))
            except KeyError:
                pass
    path_nodes = [int(n) for n in route.split(",") if n.strip().isdigit() and int(n) in c.graph]
    return Response(svg(c, marked, path_nodes, zoom), media_type="image/svg+xml")


def svg(c: City, marked: list[Place], path_nodes: list[int], zoom: int = 0, label: str = "") -> str:
    """The SVG text of the map (900 x 640), centred on the markers and route when any. Pages
    put it inline (an image that loads after the page has an empty box until it has loaded, so
    the viewport-pruned observation would depend on timing)."""
    g = c.graph
    lats = [d["lat"] for _, d in g.nodes(data=True)]
    lons = [d["lon"] for _, d in g.nodes(data=True)]
    focus = [(p.lat, p.lon) for p in marked] + [
        (g.nodes[n]["lat"], g.nodes[n]["lon"]) for n in path_nodes
    ]
    if focus:
        cy = sum(f[0] for f in focus) / len(focus)
        cx = sum(f[1] for f in focus) / len(focus)
    else:
        cy, cx = (min(lats) + max(lats)) / 2, (min(lons) + max(lons)) / 2
    span_lat = (max(lats) - min(lats)) * 1.05 / (1.6 ** max(0, min(zoom, 4)))
    span_lon = span_lat * 900 / 640 * 1.32

    def xy(lat: float, lon: float) -> tuple[float, float]:
        return (
            round((lon - cx) / span_lon * 900 + 450, 1),
            round((cy - lat) / span_lat * 640 + 320, 1),
        )

    parts = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="640" viewBox="0 0 900 640" '
        f'role="img" aria-label="{esc(label or "Map of " + CITY)}">',
        '<rect width="900" height="640" fill="#f2efe9"/>',
    ]
    drawn: set[tuple[int, int]] = set()
    for kind in ("footway", "cycleway", "residential", "secondary", "primary", "motorway"):
        colour, width = ROAD_STYLE[kind]
        segs = []
        for u, v, d in g.edges(data=True):
            if d["kind"] != kind or (v, u) in drawn:
                continue
            drawn.add((u, v))
            x1, y1 = xy(g.nodes[u]["lat"], g.nodes[u]["lon"])
            x2, y2 = xy(g.nodes[v]["lat"], g.nodes[v]["lon"])
            segs.append(f"M{x1} {y1}L{x2} {y2}")
        dash = ' stroke-dasharray="4 3"' if kind in ("footway", "cycleway") else ""
        parts.append(
            f'<path d="{"".join(segs)}" stroke="{colour}" stroke-width="{width}"{dash} '
            'fill="none" stroke-linecap="round"/>'
        )
    for p in c.places:
        x, y = xy(p.lat, p.lon)
        if 0 <= x <= 900 and 0 <= y <= 640:
            parts.append(f'<circle cx="{x}" cy="{y}" r="2.5" fill="{CATEGORY_COLOR[p.category]}"/>')
    if path_nodes:
        pts = " ".join(
            "{},{}".format(*xy(g.nodes[n]["lat"], g.nodes[n]["lon"])) for n in path_nodes
        )
        parts.append(
            f'<polyline points="{pts}" fill="none" stroke="#0060ff" stroke-width="5" '
            'stroke-opacity="0.75"/>'
        )
    for n, p in enumerate(marked, 1):
        x, y = xy(p.lat, p.lon)
        parts.append(
            f'<g><path d="M{x} {y}l-9 -18a11 11 0 1 1 18 0z" fill="#2a81cb" stroke="#1d5a8c"/>'
            f'<text x="{x}" y="{y - 20}" font-size="11" text-anchor="middle" fill="#fff" '
            f'font-family="sans-serif">{n}</text>'
            f'<text x="{x + 12}" y="{y - 8}" font-size="12" font-family="sans-serif" '
            f'fill="#222" stroke="#fff" stroke-width="3" paint-order="stroke">{esc(p.name)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


@router.get("/{section}")
def static_section(section: str):
    texts = {
        "about": f"<h2>About</h2><p>A map of {CITY} made of {len(city().places)} places and "
        f"{city().graph.number_of_edges() // 2} street segments. Routing by the fastest path "
        "for the chosen mode.</p>",
        "history": "<h2>Changesets</h2><p>No changesets in this area.</p>",
        "export": "<h2>Export</h2><p>Choose an area of the map to export as OSM XML.</p>",
    }
    if section not in texts:
        return _page(f"Not found | {TITLE}", "<h2>Page not found</h2>", [])
    return _page(f"{section.title()} | {TITLE}", texts[section], [])


def create_app() -> FastAPI:
    return site_app(router)
