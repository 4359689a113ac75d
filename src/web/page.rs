//! Rendering a page: the templates compiled into the binary, the headers
//! every page carries, and the error page a request that cannot be served
//! becomes.

use std::sync::OnceLock;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use minijinja::Environment;
use serde_json::{json, Value};

use super::session::Csrf;
use crate::service::ServiceError;

pub(super) const TEMPLATES: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/web/base.html")),
    ("macros.html", include_str!("../../templates/web/macros.html")),
    ("error.html", include_str!("../../templates/web/error.html")),
    ("landing.html", include_str!("../../templates/web/landing.html")),
    ("game.html", include_str!("../../templates/web/game.html")),
    ("forms.html", include_str!("../../templates/web/forms.html")),
    ("press.html", include_str!("../../templates/web/press.html")),
    ("command_templates.html", include_str!("../../templates/web/command_templates.html")),
    ("host_new.html", include_str!("../../templates/web/host_new.html")),
    ("host_created.html", include_str!("../../templates/web/host_created.html")),
    ("host.html", include_str!("../../templates/web/host.html")),
    ("home.html", include_str!("../../templates/web/home.html")),
    ("data.html", include_str!("../../templates/web/data.html")),
    ("rules.html", include_str!("../../templates/web/rules.html")),
];

pub(super) fn templates() -> &'static Environment<'static> {
    static ENV: OnceLock<Environment<'static>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = Environment::new();
        for (name, src) in TEMPLATES {
            env.add_template(name, src).expect("the page templates parse");
        }
        env
    })
}

/// A request that cannot be served, as a page a person can act on.
#[derive(Debug)]
pub struct PageError {
    status: StatusCode,
    title: String,
    detail: String,
}

impl PageError {
    pub(super) fn new(status: StatusCode, title: impl Into<String>, detail: impl Into<String>) -> PageError {
        PageError { status, title: title.into(), detail: detail.into() }
    }
}

impl std::fmt::Display for PageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.title, self.detail)
    }
}

impl ResponseError for PageError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        render(self.status, "error.html", json!({ "title": self.title, "detail": self.detail }), None)
    }
}

impl From<ServiceError> for PageError {
    fn from(e: ServiceError) -> PageError {
        let api = crate::problem::ApiError::from(e);
        PageError::new(api.status, api.title, api.detail)
    }
}

pub(super) type PageResult = Result<HttpResponse, PageError>;

/// A service error in the words shown beside a form.
pub(super) fn words(e: ServiceError) -> String {
    crate::problem::ApiError::from(e).detail
}

/// A service error's status and words.
pub(super) fn split(e: ServiceError) -> (StatusCode, String) {
    let api = crate::problem::ApiError::from(e);
    (api.status, api.detail)
}

/// Render `name` with `ctx`, with the headers every page carries.
pub(super) fn render(status: StatusCode, name: &str, mut ctx: Value, csrf: Option<&Csrf>) -> HttpResponse {
    if let (Some(c), Value::Object(m)) = (csrf, &mut ctx) {
        m.insert("csrf".into(), json!(c.value));
    }
    let body = templates().get_template(name).and_then(|t| t.render(&ctx));
    let mut res = match body {
        Ok(html) => HttpResponse::build(status).content_type("text/html; charset=utf-8").body(html),
        Err(e) => {
            tracing::error!(error = %e, template = name, "page template failed");
            HttpResponse::InternalServerError()
                .content_type("text/plain; charset=utf-8")
                .body(format!("the page could not be rendered: {e}"))
        }
    };
    secure_headers(&mut res);
    if let Some(c) = csrf.and_then(|c| c.cookie.clone()) {
        let _ = res.add_cookie(&c);
    }
    res
}

pub(super) fn secure_headers(res: &mut HttpResponse) {
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; \
             form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

pub(super) fn see_other(location: &str) -> HttpResponse {
    let mut res = HttpResponse::SeeOther().insert_header((header::LOCATION, location.to_owned())).finish();
    secure_headers(&mut res);
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generic_forms_template_renders_every_kind_of_part() {
        use runestone_engine::present::{Choice, Field, Form, Frame, Group, Input, Note, Part, Submit, Sum};
        let options = vec![Choice::new("a", "Apples"), Choice::new("b", "<Bread>")];
        let form = Form::new(vec![
            Part::Refusal { build: "shop".into() },
            Group::new(
                Frame::Fieldset { legend: "Basket".into() },
                vec![
                    Field::new("n", "count.n", "How many", Input::Number { min: 1, max: 4 }).value("2").into(),
                    Field::new("m", "count.m", "More", Input::Number { min: 0, max: 4 }).into(),
                    Sum {
                        id: "total".into(),
                        fields: vec!["count.n".into(), "count.m".into()],
                        min: 3,
                        max: 3,
                        words: "three in all".into(),
                    }
                    .into(),
                    Field::new(
                        "one",
                        "one",
                        "Pick",
                        Input::One { options: options.clone(), blank: Some("none".into()), required: true },
                    )
                    .value("b")
                    .into(),
                    Field::new("sev", "sev", "Any", Input::Several { options, values: vec!["a".into()] }).into(),
                    Field::new("tick", "tick", "Tick", Input::Checkbox { checked: true }).into(),
                    Field::new("words", "words", "Say", Input::Text { max_len: 80 }).value("hi").into(),
                    Note::small("help").into(),
                ],
            )
            .into(),
            Submit::new("Buy").id("buy").into(),
            Submit::new("Do it").command("{\"type\":\"X\"}").id("x").into(),
            Submit::new("Later").id("later").disabled("not yet").into(),
        ])
        .id("shop-form")
        .build("shop")
        .hidden("extra", "1");
        let parts: Vec<Part> =
            vec![Group::new(Frame::Folded { summary: "Shop".into(), open: true }, vec![form.into()]).id("shop").into()];
        let ctx = json!({
            "forms": parts, "game": "g1", "csrf": "tok", "guard_seq": true, "rewind": {"head": 7},
            "error": "too few", "error_at": "shop", "entered": {"cmd": "{\"type\":\"X\"}"},
        });
        let html = templates().get_template("forms.html").unwrap().render(&ctx).unwrap();
        for want in [
            "<details id=\"shop\" open>",
            "<summary>Shop</summary>",
            "<form method=\"post\" action=\"/games/g1/commands\" id=\"shop-form\">",
            "<input type=\"hidden\" name=\"csrf\" value=\"tok\">",
            "<input type=\"hidden\" name=\"seq\" value=\"7\">",
            "<input type=\"hidden\" name=\"build\" value=\"shop\">",
            "<input type=\"hidden\" name=\"extra\" value=\"1\">",
            "id=\"error\"><strong>Not accepted:</strong> too few",
            "<legend>Basket</legend>",
            "<input type=\"number\" id=\"n\" name=\"count.n\" min=\"1\" max=\"4\" step=\"1\" inputmode=\"numeric\" value=\"2\">",
            "data-min=\"3\" data-max=\"3\">three in all</p>",
            "<select id=\"one\" name=\"one\" required>",
            "<option value=\"\">none</option>",
            "<option value=\"b\" selected>&lt;Bread&gt;</option>",
            "<input type=\"checkbox\" name=\"sev\" value=\"a\" checked> Apples",
            "<input type=\"checkbox\" name=\"sev\" value=\"b\"> &lt;Bread&gt;",
            "<input type=\"checkbox\" id=\"tick\" name=\"tick\" value=\"on\" checked>",
            "<input type=\"text\" id=\"words\" name=\"words\" value=\"hi\" maxlength=\"80\">",
            "<p class=\"small\">help</p>",
            "<button type=\"submit\" id=\"buy\">Buy</button>",
            "class=\"chosen\" id=\"x\">Do it</button>",
            "<button type=\"button\" id=\"later\" disabled aria-describedby=\"later-why\">Later</button>",
        ] {
            assert!(html.contains(want), "{want} in {html}");
        }
        assert!(html.contains("data-sum-of=\"input[name=") && html.contains("count.m"), "{html}");
        let quiet =
            json!({"forms": parts, "game": "g1", "csrf": "tok", "error": "x", "error_at": "other", "entered": {}});
        let html = templates().get_template("forms.html").unwrap().render(&quiet).unwrap();
        assert!(!html.contains("id=\"error\"") && !html.contains("name=\"seq\""), "{html}");
    }
}
