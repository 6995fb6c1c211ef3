"""The admin's reviews (Marketing > All Reviews), as Magento has them: a grid of every review
whatever its status (a search of the text; filters by status, product, nickname and date;
each row's status and rating), mass actions on the rows chosen or on all the grid finds
(Update Status, Delete: the bar below the grid), and each review's edit page (status, nickname, summary, text; Save
Review, Delete Review). Only approved reviews show in the store and count in a product's
rating (:func:`.seed_shop.refresh_rating`)."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import Request

from agentgym_envs.envs.webarena.sites.admin import (
    ACCOUNTS,
    User,
    _date_field,
    _modal,
    _nav,
    _records,
    render,
)
from agentgym_envs.envs.webarena.sites.admin_catalog import first, form_lists
from agentgym_envs.envs.webarena.sites.common import SqlRows, connect, esc, qs, redirect
from agentgym_envs.envs.webarena.sites.seed_shop import REVIEW_STATUSES, refresh_rating

router = APIRouter()

#: The grid's filters (query parameters) that a mass action's Select All carries.
FILTERS = ("q", "product", "nickname", "status", "date_from", "date_to")
ACTIONS = {"delete": "Delete", "update_status": "Update Status"}
_SOURCE = "(SELECT r.*, p.name FROM shop_reviews r JOIN shop_products p ON p.id = r.product_id)"


def _where(f: dict[str, str]) -> tuple[str, list[object]]:
    where = (
        "lower(body) LIKE ? AND lower(name) LIKE ? AND lower(author) LIKE ? AND "
        "substr(created, 1, 10) >= ? AND substr(created, 1, 10) <= ?"
    )
    args: list[object] = [
        f"%{f.get('q', '').lower()}%",
        f"%{f.get('product', '').lower()}%",
        f"%{f.get('nickname', '').lower()}%",
        f.get("date_from") or "0000",
        f.get("date_to") or "9999",
    ]
    if f.get("status") in REVIEW_STATUSES.values():
        where += " AND status = ?"
        args.append(f["status"])
    return where, args


def _stars(rating: int) -> str:
    return f"{'★' * rating}{'☆' * (5 - rating)} ({rating} of 5)"


def _cells(r) -> list[str]:
    return [
        f'<input type="checkbox" name="ids" value="{r["id"]}" form="review-massaction" '
        f'aria-label="Select review {r["id"]}">',
        str(r["id"]),
        esc(r["created"]),
        esc(r["status"]),
        esc(r["title"]),
        esc(r["author"]),
        esc(r["name"]),
        _stars(r["rating"]),
        esc(r["body"]),
        f'<a href="/admin/review/product/edit/id/{r["id"]}">Edit review {r["id"]}</a>',
    ]


@router.get("/admin/reviews")
def reviews(
    request: Request,
    user: User,
    q: str = "",
    product: str = "",
    nickname: str = "",
    status: str = "",
    date_from: str = "",
    date_to: str = "",
    page: int = 1,
    message: str = "",
):
    """The review grid (see the module)."""
    if user is None:
        return redirect(ACCOUNTS.login)
    f = {
        "q": q,
        "product": product,
        "nickname": nickname,
        "status": status,
        "date_from": date_from,
        "date_to": date_to,
    }
    where, args = _where(f)
    rows = SqlRows(connect(request), _SOURCE, where, args, "id DESC")
    links = " ".join(
        f'<a href="/admin/reviews?{qs(status=s)}">{esc(s)}</a>' for s in REVIEW_STATUSES.values()
    )
    filters = (
        '<form class="grid-filters" method="get" action="/admin/reviews">'
        f'<input type="hidden" name="q" value="{esc(q)}">'
        f'<input type="hidden" name="status" value="{esc(status)}"><label>Product <input '
        f'type="text" name="product" aria-label="Product" value="{esc(product)}"></label> '
        '<label>Nickname <input type="text" name="nickname" aria-label="Nickname" '
        f'value="{esc(nickname)}"></label> '
        + _date_field("date_from", "From", date_from)
        + " "
        + _date_field("date_to", "To", date_to)
        + ' <button class="primary" type="submit">Apply Filters</button></form>'
    )
    hidden = "".join(f'<input type="hidden" name="{k}" value="{esc(v)}">' for k, v in f.items())
    actions = "".join(f'<option value="{v}">{label}</option>' for v, label in ACTIONS.items())
    statuses = "".join(f'<option value="{k}">{v}</option>' for k, v in REVIEW_STATUSES.items())
    mass = (
        '<form id="review-massaction" class="admin__data-grid-massaction" method="post" '
        f'action="/admin/review/product/massaction">{hidden}'
        '<label>Select All <input type="checkbox" name="select_all" value="1"></label> '
        f'<label>Actions <select name="action"><option value="">Actions</option>{actions}'
        f'</select></label> <label>Status <select name="status_id">{statuses}</select></label> '
        '<button type="submit">Submit</button></form>'
    )
    note = f"<p role='status'>{esc(message)}</p>" if message else ""
    body = (
        f'<h1>Reviews</h1>{note}<nav aria-label="Status">Status: <a href="/admin/reviews">All'
        f"</a> {links}</nav>"
        + filters
        + _records(
            "/admin/reviews",
            "Search reviews",
            q,
            rows,
            page,
            ["", "ID", "Created", "Status", "Title", "Nickname", "Product", "Rating", "Review", ""],
            _cells,
            **{k: v for k, v in f.items() if k != "q"},
        )
        + mass
    )
    return render("Reviews / Magento Admin", body, _nav())


def _apply(db, ids: list[int], action: str, status: str) -> None:
    products = {
        r[0]
        for r in db.execute(
            f"SELECT product_id FROM shop_reviews WHERE id IN ({','.join('?' * len(ids))})", ids
        )
    }
    if action == "delete":
        db.executemany("DELETE FROM shop_reviews WHERE id=?", [(i,) for i in ids])
    else:
        db.executemany("UPDATE shop_reviews SET status=? WHERE id=?", [(status, i) for i in ids])
    for pid in products:
        refresh_rating(db, pid)


@router.post("/admin/review/product/massaction")
async def massaction(request: Request, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = await form_lists(request)
    action = first(data, "action")
    status_id = first(data, "status_id")
    status = REVIEW_STATUSES.get(int(status_id)) if status_id.isdigit() else None
    with connect(request) as db:
        if first(data, "select_all"):
            where, args = _where({k: first(data, k) for k in FILTERS})
            ids = [r[0] for r in db.execute(f"SELECT id FROM {_SOURCE} WHERE {where}", args)]
        else:
            ids = [int(i) for i in data.get("ids", []) if i.isdigit()]
        back = {k: first(data, k) for k in FILTERS}
        if not ids or action not in ACTIONS or (action == "update_status" and status is None):
            why = "Please select review(s)." if not ids else "Please select an action."
            return redirect(f"/admin/reviews?{qs(**back, message=why)}")
        _apply(db, ids, action, status or "")
    done = "deleted" if action == "delete" else "updated"
    return redirect(
        f"/admin/reviews?{qs(**back, message=f'A total of {len(ids)} record(s) have been {done}.')}"
    )


@router.get("/admin/review/product/edit/id/{rid}")
def edit_review(request: Request, rid: int, user: User, saved: str = ""):
    """A review's edit page; a review deleted (or never written) shows Magento's empty form:
    "Rating isn't Available"."""
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        r = db.execute(
            "SELECT r.*, p.name, p.sku FROM shop_reviews r JOIN shop_products p ON "
            "p.id = r.product_id WHERE r.id=?",
            (rid,),
        ).fetchone()
    if r is None:
        body = (
            "<h1>Edit Review</h1><p role='alert'>This review no longer exists.</p>"
            "<div class='admin__field'><span class='label'>Product Rating</span> "
            "<div class='rating'>Rating isn't Available</div></div>"
            '<p><a href="/admin/reviews">Back</a></p>'
        )
        return render("Edit Review / Reviews / Magento Admin", body, _nav())
    current = next(k for k, v in REVIEW_STATUSES.items() if v == r["status"])
    statuses = "".join(
        f'<option value="{k}"{" selected" if k == current else ""}>{v}</option>'
        for k, v in REVIEW_STATUSES.items()
    )
    note = "<p role='status'>You saved the review.</p>" if saved else ""
    body = (
        f"<h1>Edit Review</h1>{note}"
        f'<form class="admin__fieldset" method="post" action="/admin/review/product/edit/id/{rid}">'
        f"<p>Product: {esc(r['name'])} (SKU {esc(r['sku'])})</p><p>Posted: {esc(r['created'])}"
        "</p><div class='admin__field'><span class='label'>Product Rating</span> "
        f"<div class='rating'>{_stars(r['rating'])}</div></div>"
        f'<label>Status <select name="status_id">{statuses}</select></label> '
        f'<label>Nickname <input type="text" name="nickname" value="{esc(r["author"])}"></label> '
        '<label>Summary of Review <input type="text" name="title" '
        f'value="{esc(r["title"])}"></label> <label>Review <textarea name="detail" rows="4">'
        f"{esc(r['body'])}</textarea></label>"
        '<button class="primary" type="submit">Save Review</button> '
        '<button type="button" data-modal="delete-review">Delete Review</button></form>'
        + _modal(
            "delete-review",
            "Delete review",
            "Are you sure you want to do this?",
            f"/admin/review/product/delete/id/{rid}",
            "OK",
        )
    )
    return render("Edit Review / Reviews / Magento Admin", body, _nav())


@router.post("/admin/review/product/edit/id/{rid}")
async def save_review(request: Request, rid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    data = {k: v[-1] for k, v in (await form_lists(request)).items()}
    status_id = data.get("status_id", "")
    with connect(request) as db:
        r = db.execute("SELECT * FROM shop_reviews WHERE id=?", (rid,)).fetchone()
        if r is None:
            return redirect(f"/admin/review/product/edit/id/{rid}")
        db.execute(
            "UPDATE shop_reviews SET status=?, author=?, title=?, body=? WHERE id=?",
            (
                REVIEW_STATUSES.get(int(status_id), r["status"])
                if status_id.isdigit()
                else r["status"],
                data.get("nickname", "").strip() or r["author"],
                data.get("title", r["title"]),
                data.get("detail", r["body"]),
                rid,
            ),
        )
        refresh_rating(db, r["product_id"])
    return redirect(f"/admin/review/product/edit/id/{rid}?saved=1")


@router.post("/admin/review/product/delete/id/{rid}")
def delete_review(request: Request, rid: int, user: User):
    if user is None:
        return redirect(ACCOUNTS.login)
    with connect(request) as db:
        r = db.execute("SELECT product_id FROM shop_reviews WHERE id=?", (rid,)).fetchone()
        if r is not None:
            _apply(db, [rid], "delete", "")
    return redirect(f"/admin/reviews?{qs(message='The review has been deleted.')}")
