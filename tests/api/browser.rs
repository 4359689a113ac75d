//! Browsers for the page tests: a plain-HTTP client with its own cookie jar
//! (what a browser without JavaScript does), and a real headless Chromium
//! driven over WebDriver. Every wait waits for a condition with a generous
//! bound, and every action that loads a page waits for that new page
//! ([`Driver::loads`]), never for an element the old page also had.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::helpers::TestApp;

// ---------------------------------------------------------------- plain HTTP with cookies

/// An HTTP answer of a page.
pub(crate) struct Page {
    pub(crate) status: u16,
    pub(crate) location: String,
    pub(crate) set_cookies: BTreeMap<String, String>,
    pub(crate) html: String,
}

pub(crate) fn page_agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .timeout_global(Some(Duration::from_secs(30)))
        .max_idle_age(crate::helpers::IDLE)
        .build()
        .into()
}

pub(crate) fn urlencode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

pub(crate) fn form_body(fields: &[(&str, &str)]) -> String {
    fields.iter().map(|(k, v)| format!("{}={}", urlencode(k), urlencode(v))).collect::<Vec<_>>().join("&")
}

/// A browser-like client: its own cookie jar, no redirects followed.
pub(crate) struct Browser<'a> {
    pub(crate) app: &'a TestApp,
    pub(crate) agent: ureq::Agent,
    pub(crate) cookies: BTreeMap<String, String>,
    /// The CSRF field of the last page that carried one.
    pub(crate) csrf: Option<String>,
}

impl<'a> Browser<'a> {
    pub(crate) fn new(app: &'a TestApp) -> Browser<'a> {
        Browser { app, agent: page_agent(), cookies: BTreeMap::new(), csrf: None }
    }

    pub(crate) fn cookie_header(&self) -> String {
        self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }

    pub(crate) fn finish(&mut self, resp: Result<ureq::http::Response<ureq::Body>, ureq::Error>, what: &str) -> Page {
        let mut resp = resp.unwrap_or_else(|e| panic!("{what}: {e}"));
        let mut set_cookies = BTreeMap::new();
        for v in resp.headers().get_all("set-cookie") {
            let v = v.to_str().unwrap_or_default();
            let pair = v.split(';').next().unwrap_or_default();
            if let Some((k, val)) = pair.split_once('=') {
                set_cookies.insert(k.trim().to_owned(), val.trim().to_owned());
            }
        }
        self.cookies.extend(set_cookies.clone());
        let location = resp.headers().get("location").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let status = resp.status().as_u16();
        let html = resp.body_mut().read_to_string().unwrap_or_default();
        if let Some(rest) = html.split("name=\"csrf\" value=\"").nth(1) {
            self.csrf = rest.split('"').next().map(str::to_owned);
        }
        Page { status, location, set_cookies, html }
    }

    pub(crate) fn get(&mut self, path: &str) -> Page {
        let url = format!("{}{path}", self.app.base);
        let r = self.agent.get(&url).header("Cookie", self.cookie_header()).call();
        self.finish(r, &format!("GET {path}"))
    }

    pub(crate) fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let url = format!("{}{path}", self.app.base);
        let r = self
            .agent
            .post(&url)
            .header("Cookie", self.cookie_header())
            .header("Content-Type", "application/x-www-form-urlencoded")
            .send(form_body(fields));
        self.finish(r, &format!("POST {path}"))
    }

    /// The CSRF value of the last page that carried forms, as a browser
    /// posts it: bound to this browser's cookie and the session the page
    /// ran under, so a value from another session is refused.
    pub(crate) fn csrf(&self) -> String {
        self.csrf.clone().expect("an earlier page carried a form with its CSRF value")
    }

    /// Open a magic link and press its button, as a player would.
    pub(crate) fn sign_in(&mut self, game: &str, token: &str) -> Page {
        let landing = self.get(&format!("/play/{game}?token={token}"));
        assert_eq!(landing.status, 200, "{}", landing.html);
        assert!(
            landing.set_cookies.keys().all(|k| k == "rs_csrf"),
            "the landing page sets no session: {:?}",
            landing.set_cookies
        );
        let csrf = self.csrf();
        let entered = self.post(&format!("/play/{game}"), &[("csrf", &csrf), ("token", token)]);
        assert_eq!(entered.status, 303, "{}", entered.html);
        // The browser follows the redirect to the page the link opens.
        let opened = self.get(&entered.location);
        assert!(opened.status < 400, "{}: {}", entered.location, opened.html);
        entered
    }

    pub(crate) fn command(&mut self, game: &str, command: &Value) -> Page {
        let csrf = self.csrf();
        self.post(&format!("/games/{game}/commands"), &[("csrf", &csrf), ("cmd", &command.to_string())])
    }
}

// ---------------------------------------------------------------- headless Chromium over WebDriver

pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";
pub(crate) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
pub(crate) const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";
/// How long a browser test waits for something before it gives up: generous,
/// since a busy machine is slow; only there so a broken page ends the test.
pub(crate) const WAIT_BOUND: Duration = Duration::from_secs(120);

/// chromedriver as a child process, killed on drop.
pub(crate) struct Driver {
    child: Child,
    base: String,
    agent: ureq::Agent,
    session: String,
    _profile: tempfile::TempDir,
}

impl Drop for Driver {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.agent.delete(&format!("{}/session/{}", self.base, self.session)).call();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Driver {
    pub(crate) fn start() -> Driver {
        for (path, package) in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")] {
            assert!(
                std::path::Path::new(path).exists(),
                "the browser tests need {path} (Debian package {package}): \
                 install it with `apt-get install -y chromium chromium-driver`"
            );
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{CHROMEDRIVER} does not start: {e}"));
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .max_idle_age(crate::helpers::IDLE)
            .build()
            .into();
        let profile = tempfile::tempdir().unwrap();
        let mut d = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
            agent,
            session: String::new(),
            _profile: profile,
        };
        let start = Instant::now();
        loop {
            let ready = d
                .agent
                .get(&format!("{}/status", d.base))
                .call()
                .ok()
                .and_then(|mut r| r.body_mut().read_json::<Value>().ok());
            if ready.is_some_and(|v| v["value"]["ready"] == true) {
                break;
            }
            assert!(start.elapsed() < WAIT_BOUND, "chromedriver did not become ready");
            std::thread::sleep(Duration::from_millis(50));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                    "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    format!("--user-data-dir={}", d._profile.path().display()), "--window-size=1000,1400",
                ],
            },
        }}});
        let v = d.call("POST", "/session", Some(caps));
        d.session = v["sessionId"].as_str().unwrap_or_else(|| panic!("no WebDriver session: {v}")).to_owned();
        d.call(
            "POST",
            &format!("/session/{}/timeouts", d.session),
            Some(json!({"implicit": 3000, "pageLoad": 120000})),
        );
        d
    }

    /// A WebDriver command; returns its `value`, panicking on an error.
    pub(crate) fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let v = self.try_call(method, path, body);
        if let Some(err) = v.get("error") {
            panic!("WebDriver {method} {path}: {err}: {}", v["message"]);
        }
        v
    }

    pub(crate) fn try_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let resp = match (method, body) {
            ("GET", _) => self.agent.get(&url).call(),
            ("DELETE", _) => self.agent.delete(&url).call(),
            (_, b) => self.agent.post(&url).send_json(b.unwrap_or_else(|| json!({}))),
        };
        let mut resp = resp.unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        let v: Value = resp.body_mut().read_json().unwrap_or(Value::Null);
        v["value"].clone()
    }

    pub(crate) fn s(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// Open `url`; returns once its page has loaded (WebDriver's Navigate To
    /// waits for that under the normal page load strategy), so what is read
    /// next is the new page: an element it must have is checked with
    /// [`Driver::exists`], not waited for.
    pub(crate) fn go(&self, url: &str) {
        self.call("POST", &self.s("/url"), Some(json!({"url": url})));
    }

    pub(crate) fn url(&self) -> String {
        self.call("GET", &self.s("/url"), None).as_str().unwrap_or_default().to_owned()
    }

    pub(crate) fn find_by(&self, using: &str, what: &str) -> String {
        let v = self.try_call("POST", &self.s("/element"), Some(json!({"using": using, "value": what})));
        match v[ELEMENT].as_str() {
            Some(id) => id.to_owned(),
            None => panic!("no element {what} ({v}) at {}:\n{}", self.url(), self.source()),
        }
    }

    pub(crate) fn find(&self, css: &str) -> String {
        self.find_by("css selector", css)
    }

    pub(crate) fn exists(&self, css: &str) -> bool {
        let v = self.try_call("POST", &self.s("/elements"), Some(json!({"using": "css selector", "value": css})));
        v.as_array().is_some_and(|a| !a.is_empty())
    }

    pub(crate) fn click(&self, el: &str) {
        self.call("POST", &self.s(&format!("/element/{el}/click")), Some(json!({})));
    }

    pub(crate) fn clear(&self, el: &str) {
        self.call("POST", &self.s(&format!("/element/{el}/clear")), Some(json!({})));
    }

    pub(crate) fn type_in(&self, el: &str, text: &str) {
        self.call("POST", &self.s(&format!("/element/{el}/value")), Some(json!({"text": text})));
    }

    pub(crate) fn text(&self, css: &str) -> String {
        let el = self.find(css);
        self.call("GET", &self.s(&format!("/element/{el}/text")), None).as_str().unwrap_or_default().to_owned()
    }

    pub(crate) fn property(&self, css: &str, name: &str) -> String {
        let el = self.find(css);
        let v = self.call("GET", &self.s(&format!("/element/{el}/property/{name}")), None);
        v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())
    }

    pub(crate) fn source(&self) -> String {
        self.call("GET", &self.s("/source"), None).as_str().unwrap_or_default().to_owned()
    }

    /// Click the button whose words are exactly `label`.
    pub(crate) fn press(&self, label: &str) {
        let el = self.find_by("xpath", &format!("//button[normalize-space()='{label}']"));
        self.click(&el);
    }

    pub(crate) fn screenshot(&self, name: &str) {
        let b64 = self.call("GET", &self.s("/screenshot"), None);
        let png = base64_decode(b64.as_str().expect("a base64 PNG"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    /// The browser console's errors since the last call (CSP violations,
    /// script errors, failed loads).
    pub(crate) fn console_errors(&self) -> Vec<String> {
        let v = self.call("POST", &self.s("/se/log"), Some(json!({"type": "browser"})));
        v.as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    pub(crate) fn resize(&self, width: u32, height: u32) {
        self.call("POST", &self.s("/window/rect"), Some(json!({"width": width, "height": height})));
    }

    /// Run `script` in the page; its return value.
    pub(crate) fn eval(&self, script: &str) -> Value {
        self.call("POST", &self.s("/execute/sync"), Some(json!({"script": script, "args": []})))
    }

    /// Wait until `css` matches. Only for an element the page did not have
    /// before; after an action that loads a new page, use [`Driver::loads`],
    /// since the old page may still match.
    pub(crate) fn wait_for(&self, css: &str) {
        self.wait_until(&format!("{css} to appear"), || self.exists(css));
    }

    /// Wait for `done`, polling; the bound is generous (a busy machine is
    /// slow), and only there to end a test that would otherwise hang.
    pub(crate) fn wait_until(&self, what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(start.elapsed() < WAIT_BOUND, "waited {WAIT_BOUND:?} for {what} at {}", self.url());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Do `act`, which makes the browser load a new page (a form posted, a
    /// link followed, a script reloading), and wait until that new page has
    /// loaded: the old document is marked first, so no check can read it.
    pub(crate) fn loads(&self, act: impl FnOnce()) {
        self.eval("window.__runestoneOldPage = true; return true;");
        act();
        self.wait_until("the next page to load", || {
            let v = self.try_call(
                "POST",
                &self.s("/execute/sync"),
                Some(json!({"script": "return !window.__runestoneOldPage && document.readyState === 'complete';", "args": []})),
            );
            v == Value::Bool(true)
        });
    }
}

pub(crate) fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("web-screenshots")
}

pub(crate) fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).expect("base64 from WebDriver")
}
