//! The game page: the table header, the board and player boards, the
//! game's own forms or the generic list of commands, the log; and the
//! seat's commands and undo posted from it.

use actix_web::http::StatusCode;
use actix_web::web;
use actix_web::HttpRequest;
use runestone_engine::present::{FormsInput, Posted};
use runestone_engine::{DynGame, Viewer};
use serde_json::{json, Value};

use super::board;
use super::forms::{self, Entered, Form};
use super::log::{can_undo, fold_log, log_and_position};
use super::page::{render, see_other, split, PageResult};
use super::session::{at_of, check_csrf_session, game_id, query, seat_claims, session, Csrf, Kind};
use super::summary::{decisions, game_name, game_of, names_of, outcome_rows, pending_list};
use super::Svc;
use crate::auth::Claims;

/// The table header of a game page: the game's name (never its id), the
/// round and phase and the standings as the game tells them from the
/// viewer's view (or the seats' names alone), and who is to play.
pub(super) fn table_header(
    rules: Option<&dyn DynGame>,
    summary: &Value,
    view: &Value,
    names: &[String],
    pending: &[Value],
    me: Option<u8>,
) -> Value {
    let name = rules.map_or_else(|| summary["ruleset"].as_str().unwrap_or("a game").to_owned(), |g| g.info().name);
    let header = rules.and_then(|g| g.header(view, names)).filter(|h| h.check(names.len()).is_ok());
    // A seat that has given its secret choice (and may still change it) is
    // not the one the game waits for.
    let to_play: Vec<u64> =
        pending.iter().filter(|p| p["submitted"] != true).filter_map(|p| p["seat"].as_u64()).collect();
    let rows: Vec<Value> = (0..names.len())
        .map(|i| {
            let row = header.as_ref().and_then(|h| h.standings.get(i));
            json!({
                "seat": i,
                "name": names[i],
                "colour": row.and_then(|r| r.colour.clone()),
                "score": row.and_then(|r| r.score),
                "values": row.map(|r| r.values.clone()).unwrap_or_default(),
                "me": me == Some(i as u8),
                "to_play": to_play.contains(&(i as u64)),
            })
        })
        .collect();
    json!({
        "name": name,
        "round": header.as_ref().and_then(|h| h.round),
        "phase": header.as_ref().and_then(|h| h.phase.clone()),
        "score": header.as_ref().map(|h| h.score.clone()).filter(|s| !s.is_empty()),
        "columns": header.as_ref().map(|h| h.columns.clone()).unwrap_or_default(),
        "rows": rows,
        "to_play": pending,
        "over": summary["status"] == "over",
        "paused": summary["deadlines"]["paused"] == true,
    })
}

pub(super) async fn game_page(svc: Svc, req: HttpRequest, path: web::Path<String>) -> PageResult {
    let game = game_id(path)?;
    let at = at_of(&req)?;
    let (claims, problem) = session(&svc, &req, Kind::Seat, &game).await;
    render_game(&svc, &req, &game, claims.as_ref(), problem, at, StatusCode::OK, None, Entered::default()).await
}

/// The raw view behind a game page's "data" link: everything the viewer
/// may see, in the generic rendering and as JSON.
pub(super) async fn data_page(svc: Svc, req: HttpRequest, path: web::Path<String>) -> PageResult {
    let game = game_id(path)?;
    let at = at_of(&req)?;
    let (claims, _) = session(&svc, &req, Kind::Seat, &game).await;
    let viewer = claims.as_ref().map_or(Viewer::Public, Claims::viewer);
    let summary = svc.summary(&game).await?;
    let names = names_of(&summary);
    let view = svc.view(&game, viewer, at).await?;
    let ctx = json!({
        "game": game,
        "game_name": game_name(&svc, &summary),
        "me": claims.and_then(|c| c.seat).map(|s| board::seat_name(&names, s)),
        "at": at,
        "html": board::generic_html(&view["view"], &names),
        "json": serde_json::to_string_pretty(&view["view"]).unwrap_or_default(),
    });
    Ok(render(StatusCode::OK, "data.html", ctx, None))
}

#[allow(clippy::too_many_arguments)]
pub(super) async fn render_game(
    svc: &Svc,
    req: &HttpRequest,
    game: &str,
    claims: Option<&Claims>,
    problem: Option<String>,
    at: Option<u64>,
    status: StatusCode,
    error: Option<String>,
    entered: Entered,
) -> PageResult {
    let csrf = Csrf::for_session(req, Kind::Seat, game);
    let summary = svc.summary(game).await?;
    let names = names_of(&summary);
    let viewer = claims.map_or(Viewer::Public, Claims::viewer);
    let me = claims.and_then(|c| c.seat);
    let (view, log, rewind, envelopes) = log_and_position(svc, game, viewer, at, &names).await?;
    let rules = game_of(svc, &summary);
    let at_head = rewind["at_head"].as_bool().unwrap_or(true);
    let legal = view["legal"].as_array().cloned().unwrap_or_default();
    let templates = view["legal_templates"].as_array().cloned().unwrap_or_default();
    let unavailable = unavailable_groups(&view["unavailable"]);
    let actions = forms::actions(&legal, &templates);
    let labels: Vec<String> = view["legal_labels"]
        .as_array()
        .map(|a| a.iter().map(|l| l.as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default();
    // The game's own forms, if it has them, in place of the generic list.
    let own_forms = match (rules, me) {
        (Some(g), Some(seat)) if at_head => g.forms(&FormsInput {
            seat,
            view: &view["view"],
            legal: &legal,
            labels: &labels,
            entered: &entered.values,
            names: &names,
        }),
        _ => None,
    };
    let my_turn = me.is_some_and(|s| decisions(&view).as_array().is_some_and(|p| p.iter().any(|x| x["seat"] == s)));
    // Between decisions, the standing orders the game takes at any time.
    let standing = match (rules, me) {
        (Some(g), Some(seat)) if at_head && !my_turn && !view["over"].as_bool().unwrap_or(false) => {
            g.standing_forms(&FormsInput {
                seat,
                view: &view["view"],
                legal: &[],
                labels: &[],
                entered: &entered.values,
                names: &names,
            })
        }
        _ => None,
    };
    let live: Vec<bool> = log.iter().map(|e| e["in_force"].as_bool().unwrap_or(true)).collect();
    let undo =
        at_head && !view["over"].as_bool().unwrap_or(false) && me.is_some_and(|s| can_undo(&envelopes, &live, s));
    let (log, mut log_fold) = if query(req).get("log").is_some_and(|l| l == "all") {
        let n = log.len();
        (log, json!({"folded": false, "whole": true, "all": n}))
    } else {
        fold_log(log, rewind["seq"].as_u64().unwrap_or(0))
    };
    log_fold["at"] = json!(at);
    // The player boards: the viewer's own first and in full, the others'
    // public parts folded below the map.
    let boards = rules.map(|g| g.player_boards(&view["view"], &names)).unwrap_or_default();
    let board_of = |b: &runestone_engine::present::PlayerBoard| {
        json!({
            "seat": b.seat,
            "name": board::seat_name(&names, b.seat),
            "svg": b.svg,
            "html": b.html,
            "whole": b.whole,
        })
    };
    let own_board = boards.iter().find(|b| Some(b.seat) == me).map(board_of);
    let other_boards: Vec<Value> = boards.iter().filter(|b| Some(b.seat) != me).map(board_of).collect();
    let tz = match me {
        Some(s) => svc.mail_preferences(game, s).await.ok().and_then(|(_, _, tz)| tz),
        None => None,
    };
    let pending = pending_list(&decisions(&view), &names, me, &summary, tz.as_deref());
    let dots = board::seat_classes(rules, &view["view"], names.len());
    let mut facts = super::press::page_facts(svc, game, claims, &summary).await;
    facts["at_head"] = json!(at_head);
    let thread = entered.values.get("channel").cloned().or_else(|| query(req).get("thread").cloned());
    let press = super::press::panel(&view, &names, me, &facts, &dots, &entered, thread.as_deref());
    let notices = super::notices::facts(svc, game, claims, &entered).await;
    let mut ctx = json!({
        "table": table_header(rules, &summary, &view["view"], &names, &pending, me),
        "game": game,
        "summary": summary,
        "names": names,
        "me": me.map(|s| json!({"seat": s, "name": board::seat_name(&names, s)})),
        "dots": dots,
        "press": press,
        "notices": notices,
        "problem": problem,
        "pending": pending,
        "my_turn": my_turn,
        // A turn is decided against the position shown (a stale page is
        // refused); a secret plan is not, since the others' plans move the
        // log on while one decides, and a later plan replaces an earlier.
        "guard_seq": me.is_some_and(|s| {
            view["pending"].as_array().is_some_and(|p| p.iter().any(|x| x["seat"] == s && x["class"] != "plan"))
        }),
        "example": legal.first().map(Value::to_string),
        "actions": actions,
        "unavailable": unavailable,
        "error_at": entered.values.get("build").cloned().unwrap_or_default(),
        "undo": undo,
        "rewind": rewind,
        "log": log,
        "log_fold": log_fold,
        "own_board": own_board,
        "other_boards": other_boards,
        "over": summary["status"] == "over",
        "outcome": outcome_rows(&summary, &names, me),
        "error": error,
        "entered": entered.values,
    });
    if let Some(f) = standing {
        ctx["standing"] = json!(true);
        ctx["forms"] = json!(f.parts);
    } else if let Some(f) = own_forms {
        ctx["forms"] = json!(f.parts);
    }
    Ok(render(status, "game.html", ctx, Some(&csrf)))
}

/// The actions of the turn the rules do not allow now (the view answer's
/// `unavailable`), by group in the order given, each with an id for its
/// disabled button and the reason it is described by.
pub(super) fn unavailable_groups(list: &Value) -> Value {
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for (i, a) in list.as_array().into_iter().flatten().enumerate() {
        let name = a["group"].as_str().unwrap_or("Other").to_owned();
        let item = json!({ "id": format!("not-{i}"), "label": a["label"], "reason": a["reason"] });
        match groups.iter_mut().find(|(n, _)| *n == name) {
            Some((_, items)) => items.push(item),
            None => groups.push((name, vec![item])),
        }
    }
    Value::Array(groups.into_iter().map(|(name, items)| json!({ "name": name, "items": items })).collect())
}

pub(super) async fn command(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    check_csrf_session(&req, &form, Kind::Seat, &game)?;
    let entered = Entered::of(&form);
    let built = match form.get("build") {
        // A form of the game's own: the game builds the command.
        Some(build) => {
            let summary = svc.summary(&game).await?;
            let view = svc.view(&game, claims.viewer(), None).await?;
            let posted = Posted::from(form.pairs().map(|(k, v)| (k.to_owned(), v.to_owned())).collect::<Vec<_>>());
            match game_of(&svc, &summary).and_then(|g| g.command_of_form(build, &posted, &view["view"])) {
                Some(built) => built.and_then(|c| forms::submission(&form, c)),
                None => Err(format!("this game has no form called {build:?}; reload the page")),
            }
        }
        None => forms::command_of(&form),
    };
    let submission = match built {
        Ok(c) => c,
        Err(msg) => {
            return render_game(
                &svc,
                &req,
                &game,
                Some(&claims),
                None,
                None,
                StatusCode::UNPROCESSABLE_ENTITY,
                Some(msg),
                entered,
            )
            .await
        }
    };
    match svc.submit_written(&game, &claims, submission, None).await {
        Ok(_) => Ok(see_other(&format!("/games/{game}"))),
        Err(e) => {
            let (status, msg) = split(e);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, Some(msg), entered).await
        }
    }
}

/// A player the bot plays after missed deadlines plays their seat again.
pub(super) async fn back(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    check_csrf_session(&req, &form, Kind::Seat, &game)?;
    let action = json!({"action": "back", "seat": claims.seat});
    match svc.clock_action(&game, &claims, action).await {
        Ok(_) => Ok(see_other(&format!("/games/{game}"))),
        Err(e) => {
            let (status, msg) = split(e);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, Some(msg), Entered::default()).await
        }
    }
}

pub(super) async fn undo(svc: Svc, req: HttpRequest, path: web::Path<String>, form: web::Form<Form>) -> PageResult {
    let game = game_id(path)?;
    let claims = seat_claims(&svc, &req, &game).await?;
    check_csrf_session(&req, &form, Kind::Seat, &game)?;
    match svc.undo(&game, &claims).await {
        Ok(_) => Ok(see_other(&format!("/games/{game}"))),
        Err(e) => {
            let (status, msg) = split(e);
            render_game(&svc, &req, &game, Some(&claims), None, None, status, Some(msg), Entered::default()).await
        }
    }
}
