//! A received message (RFC 5322, MIME) read as far as a reply's orders
//! need: its headers, the text of its first text/plain part (or of its
//! first text/html part, converted to text), and the order lines in that
//! text once quoted text and signatures are cut away.
//!
//! Everything is bounded: the caller refuses a message larger than its
//! limit before it gets here, and the parts walked, their nesting and the
//! lines read are counted. Nothing of the message is kept: the caller
//! stores its Message-ID and a hash only.

use sha2::{Digest, Sha256};

/// The most MIME parts walked in one message.
const MAX_PARTS: usize = 64;
/// The deepest nesting of multiparts followed.
const MAX_DEPTH: usize = 8;
/// The most order lines read from one reply.
pub const MAX_LINES: usize = 60;
/// The longest order line, in characters.
pub const MAX_LINE_CHARS: usize = 300;

/// A received message, read.
#[derive(Clone, Debug)]
pub struct Received {
    /// The top-level headers, unfolded, in order.
    pub headers: Vec<(String, String)>,
    /// The text the sender wrote (the first text/plain part, or the first
    /// text/html part converted), as it came: quotes and all.
    pub text: String,
    /// Whether that text came from HTML (the message had no plain text).
    pub from_html: bool,
    /// The SHA-256 of the message's bytes, hex.
    pub sha256: String,
}

impl Received {
    /// Read `raw`; an error says in words why it is not a message.
    pub fn parse(raw: &[u8]) -> Result<Received, String> {
        let sha256 = hex::encode(Sha256::digest(raw));
        let (head, body) = split_head(raw);
        let headers = parse_headers(head);
        if headers.is_empty() {
            return Err("it has no headers: it is not a mail message".into());
        }
        let mut found = Found::default();
        let mut parts = 0;
        walk(&headers, body, 0, &mut parts, &mut found);
        let (text, from_html) = match (found.plain, found.html) {
            (Some(t), _) => (t, false),
            (None, Some(h)) => (html_to_text(&h), true),
            (None, None) => (String::new(), false),
        };
        Ok(Received { headers, text, from_html, sha256 })
    }

    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Every header named `name`, in order.
    pub fn headers_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers.iter().filter(move |(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The Message-ID, as written (angle brackets dropped), cut to 200
    /// characters; empty when there is none.
    pub fn message_id(&self) -> String {
        let id = self.header("Message-ID").unwrap_or("").trim().trim_start_matches('<').trim_end_matches('>');
        id.chars().filter(|c| c.is_ascii_graphic()).take(200).collect()
    }

    /// The address of the From header, lowercase; `None` when there is none
    /// or it is not one address.
    pub fn from_address(&self) -> Option<String> {
        let from = self.header("From")?;
        let all = addresses(from);
        match all.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// Why this message is not a person's reply, if it is not: an
    /// auto-reply (`Auto-Submitted`, `X-Autoreply`, `Precedence`), a bounce
    /// (a delivery report, a null return path, a mailer daemon) or mail
    /// from a list (`List-Id`). Such mail is never answered: answering it
    /// starts mail loops.
    pub fn automatic(&self) -> Option<&'static str> {
        if self.header("Auto-Submitted").is_some_and(|v| !v.trim().to_ascii_lowercase().starts_with("no")) {
            return Some("it was sent automatically (Auto-Submitted)");
        }
        if self.header("X-Autoreply").is_some() || self.header("X-Autorespond").is_some() {
            return Some("it is an automatic reply");
        }
        if self
            .header("Precedence")
            .is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "bulk" | "junk" | "list" | "auto_reply"))
        {
            return Some("it is bulk or list mail (Precedence)");
        }
        if self.header("List-Id").is_some() || self.header("List-Post").is_some() {
            return Some("it came through a mailing list (List-Id)");
        }
        if self.header("Return-Path").is_some_and(|v| v.trim() == "<>") {
            return Some("it is a bounce (its return path is empty)");
        }
        let ct = self.header("Content-Type").unwrap_or("").to_ascii_lowercase();
        if ct.starts_with("multipart/report") {
            return Some("it is a delivery report (a bounce)");
        }
        let from = self.header("From").unwrap_or("").to_ascii_lowercase();
        if from.contains("mailer-daemon@") || from.contains("postmaster@") {
            return Some("it is a bounce (from a mailer daemon)");
        }
        None
    }

    /// What the `Authentication-Results` header written by `authserv` (the
    /// operator's own receiving MTA) says of the message: `Some(true)` when
    /// DMARC passed, or DKIM or SPF passed and DMARC did not fail;
    /// `Some(false)` when it says otherwise; `None` when that MTA wrote no
    /// such header. Headers written by anyone else (the sender can write
    /// any) are ignored.
    pub fn authenticated_by(&self, authserv: &str) -> Option<bool> {
        let want = authserv.trim().to_ascii_lowercase();
        if want.is_empty() {
            return None;
        }
        // The receiving MTA puts its header above everything the sender
        // wrote: the first one of its id is its own.
        let results = self.headers_named("Authentication-Results").find(|v| {
            let id = v.split(';').next().unwrap_or("").split_whitespace().next().unwrap_or("");
            id.eq_ignore_ascii_case(&want)
        })?;
        let lower = results.to_ascii_lowercase();
        let says = |method: &str, result: &str| {
            lower.split(';').any(|clause| clause.trim().starts_with(&format!("{method}={result}")))
        };
        if says("dmarc", "fail") {
            return Some(false);
        }
        Some(says("dmarc", "pass") || says("dkim", "pass") || says("spf", "pass"))
    }
}

/// The order lines of a reply's text: the lines before the first quoted
/// line, quote header ("On … wrote:"), forwarded or original message
/// marker, signature separator ("-- ") or `END` line, blank lines dropped,
/// each trimmed and numbered as the reader counts lines. At most
/// [`MAX_LINES`] lines, each cut to [`MAX_LINE_CHARS`] characters.
pub fn order_lines(text: &str) -> Vec<runestone_engine::present::OrderLine> {
    let mut out: Vec<runestone_engine::present::OrderLine> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if ends_orders(line, t) {
            // A quote header a mail client wrapped: its first half ("On
            // Tue, 24 Nov 2026 at 18:00, runestone <") is no order either.
            if t.to_ascii_lowercase().ends_with("wrote:")
                && out.last().is_some_and(|l| l.number == i && l.text.to_ascii_lowercase().starts_with("on "))
            {
                out.pop();
            }
            break;
        }
        if t.is_empty() {
            continue;
        }
        if out.len() == MAX_LINES {
            break;
        }
        out.push(runestone_engine::present::OrderLine {
            number: i + 1,
            text: t.chars().take(MAX_LINE_CHARS).collect(),
        });
    }
    out
}

/// Whether `line` (trimmed: `t`) ends a reply's own words.
fn ends_orders(line: &str, t: &str) -> bool {
    let lower = t.to_ascii_lowercase();
    t.starts_with('>')
        || line == "-- "
        || t == "--"
        || lower == "end"
        || lower == "end."
        || (lower.ends_with("wrote:") && (lower.starts_with("on ") || lower.contains('@') || lower.contains(" at ")))
        || (lower.starts_with("-----") && lower.contains("original message"))
        || (lower.starts_with("-----") && lower.contains("forwarded message"))
        || (lower.starts_with("---------- forwarded"))
        || t.starts_with("________________")
        || lower.starts_with("sent from my ")
        || (lower.starts_with("from: ") && lower.contains('@'))
}

/// The addresses in a header value ("Ása <asa@example.org>, b@example.org"),
/// lowercase. Display names and comments are skipped.
pub fn addresses(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Quoted display names may hold commas and angle brackets: drop them.
    let mut plain = String::with_capacity(value.len());
    let mut quoted = false;
    let mut escaped = false;
    for c in value.chars() {
        if quoted {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                quoted = false;
            }
            continue;
        }
        if c == '"' {
            quoted = true;
            continue;
        }
        plain.push(c);
    }
    for item in plain.split(',') {
        let addr = match (item.find('<'), item.rfind('>')) {
            (Some(a), Some(b)) if a < b => &item[a + 1..b],
            _ => item.split('(').next().unwrap_or(""),
        };
        let addr = addr.trim();
        if addr.contains('@') && !addr.contains(char::is_whitespace) && addr.len() <= 254 {
            out.push(addr.to_ascii_lowercase());
        }
    }
    out
}

/// The head and body of a message or part (split at the first blank line).
fn split_head(raw: &[u8]) -> (&[u8], &[u8]) {
    for (i, w) in raw.windows(2).enumerate() {
        if w == b"\n\n" {
            return (&raw[..i + 1], &raw[i + 2..]);
        }
        if w == b"\n\r" && raw.get(i + 2) == Some(&b'\n') {
            return (&raw[..i + 1], &raw[i + 3..]);
        }
    }
    (raw, &[])
}

/// Headers, unfolded; encoded words (RFC 2047) in them are not decoded
/// (what is read of them — addresses, ids, results — is ASCII).
fn parse_headers(head: &[u8]) -> Vec<(String, String)> {
    let text = String::from_utf8_lossy(head);
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if out.len() >= 500 {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, v)) = out.last_mut() {
                if v.len() < 8192 {
                    v.push(' ');
                    v.push_str(line.trim());
                }
            }
            continue;
        }
        if let Some((k, v)) = line.split_once(':') {
            let k = k.trim();
            if !k.is_empty() && k.bytes().all(|b| b.is_ascii_graphic()) {
                out.push((k.to_owned(), v.trim().to_owned()));
            }
        }
    }
    out
}

fn header_in<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// A Content-Type's lowercase type and its parameters.
fn content_type(value: &str) -> (String, Vec<(String, String)>) {
    let mut parts = value.split(';');
    let mime = parts.next().unwrap_or("").trim().to_ascii_lowercase();
    let params = parts
        .filter_map(|p| {
            let (k, v) = p.split_once('=')?;
            Some((k.trim().to_ascii_lowercase(), v.trim().trim_matches('"').to_owned()))
        })
        .collect();
    (mime, params)
}

#[derive(Default)]
struct Found {
    plain: Option<String>,
    html: Option<String>,
}

/// Walk a part: keep the first text/plain and the first text/html that
/// are not attachments.
fn walk(headers: &[(String, String)], body: &[u8], depth: usize, parts: &mut usize, found: &mut Found) {
    *parts += 1;
    if *parts > MAX_PARTS || found.plain.is_some() {
        return;
    }
    let (mime, params) = content_type(header_in(headers, "Content-Type").unwrap_or("text/plain"));
    let param = |name: &str| params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
    if mime.starts_with("multipart/") {
        let Some(boundary) = param("boundary").filter(|b| !b.is_empty() && b.len() <= 200) else { return };
        if depth >= MAX_DEPTH {
            return;
        }
        for part in split_multipart(body, boundary) {
            let (h, b) = split_head(part);
            walk(&parse_headers(h), b, depth + 1, parts, found);
            if found.plain.is_some() {
                return;
            }
        }
        return;
    }
    if header_in(headers, "Content-Disposition")
        .is_some_and(|d| d.trim().to_ascii_lowercase().starts_with("attachment"))
    {
        return;
    }
    let decoded = match header_in(headers, "Content-Transfer-Encoding").map(|e| e.trim().to_ascii_lowercase()) {
        Some(e) if e == "base64" => base64_decode(body),
        Some(e) if e == "quoted-printable" => quoted_printable_decode(body),
        _ => body.to_vec(),
    };
    let text = to_text(&decoded, param("charset").unwrap_or("utf-8"));
    if mime == "text/plain" || mime.is_empty() {
        found.plain = Some(text);
    } else if mime == "text/html" && found.html.is_none() {
        found.html = Some(text);
    }
}

/// The parts of a multipart body between its `--boundary` lines.
fn split_multipart<'a>(body: &'a [u8], boundary: &str) -> Vec<&'a [u8]> {
    let delim = format!("--{boundary}");
    let d = delim.as_bytes();
    let mut starts = Vec::new();
    let mut i = 0;
    while i + d.len() <= body.len() {
        let at_line = i == 0 || body[i - 1] == b'\n';
        if at_line && &body[i..i + d.len()] == d {
            let closing = body[i + d.len()..].starts_with(b"--");
            starts.push((i, closing));
            if closing {
                break;
            }
            i += d.len();
        } else {
            i += 1;
        }
    }
    let mut out = Vec::new();
    for w in starts.windows(2) {
        let (a, closing) = w[0];
        if closing {
            break;
        }
        // From the line after the delimiter to the line break before the next.
        let from = body[a..].iter().position(|&b| b == b'\n').map_or(body.len(), |p| a + p + 1);
        let mut to = w[1].0;
        if to > from && body[to - 1] == b'\n' {
            to -= 1;
            if to > from && body[to - 1] == b'\r' {
                to -= 1;
            }
        }
        if from <= to {
            out.push(&body[from..to]);
        }
    }
    out
}

/// Bytes in `charset` as text: UTF-8 (and US-ASCII) as they are, Latin-1
/// and Windows-1252 byte by byte; anything else read as UTF-8, with
/// replacement characters where it is not.
fn to_text(bytes: &[u8], charset: &str) -> String {
    match charset.trim().to_ascii_lowercase().as_str() {
        "iso-8859-1" | "latin1" | "iso-8859-15" | "windows-1252" | "cp1252" => {
            bytes.iter().map(|&b| b as char).collect()
        }
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

fn base64_decode(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for &c in body {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => continue,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

fn quoted_printable_decode(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    let hex = |b: u8| (b as char).to_digit(16);
    while i < body.len() {
        let c = body[i];
        if c == b'=' {
            // A soft line break.
            if body.get(i + 1) == Some(&b'\n') {
                i += 2;
                continue;
            }
            if body.get(i + 1) == Some(&b'\r') && body.get(i + 2) == Some(&b'\n') {
                i += 3;
                continue;
            }
            if let (Some(a), Some(b)) = (body.get(i + 1).and_then(|&b| hex(b)), body.get(i + 2).and_then(|&b| hex(b))) {
                out.push((a * 16 + b) as u8);
                i += 3;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// HTML as the text a reader sees: scripts, styles and quoted blocks
/// (`<blockquote>`, a mail client's quote `<div>`) dropped, line breaks at
/// block ends, tags removed, entities decoded.
pub fn html_to_text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len());
    let mut i = 0;
    let bytes = html.as_bytes();
    // Skipping until this closing tag, and how deep in it.
    let mut skip: Option<(&str, usize)> = None;
    while i < bytes.len() {
        if bytes[i] == b'<' {
            let end = lower[i..].find('>').map_or(bytes.len(), |e| i + e + 1);
            let tag = &lower[i + 1..end.saturating_sub(1).max(i + 1)];
            let closing = tag.starts_with('/');
            let name: String = tag.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            if let Some((until, depth)) = skip {
                if name == until {
                    if closing {
                        skip = if depth == 0 { None } else { Some((until, depth - 1)) };
                    } else {
                        skip = Some((until, depth + 1));
                    }
                }
                i = end;
                continue;
            }
            let quote_div = name == "div"
                && (tag.contains("gmail_quote") || tag.contains("moz-cite") || tag.contains("divrplyfwdmsg"));
            match name.as_str() {
                "script" | "style" | "head" | "blockquote" | "title" if !closing => {
                    skip = Some((leak(&name), 0));
                }
                "div" if quote_div && !closing => skip = Some(("div", 0)),
                "br" | "p" | "div" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "pre" | "table" => out.push('\n'),
                _ => {}
            }
            i = end;
            continue;
        }
        if skip.is_some() {
            i += html[i..].chars().next().map_or(1, char::len_utf8);
            continue;
        }
        if bytes[i] == b'&' {
            if let Some(semi) = html[i..].find(';').filter(|&s| s <= 10) {
                let entity = &html[i + 1..i + semi];
                let c = match entity {
                    "amp" => Some('&'),
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    "nbsp" => Some(' '),
                    e if e.starts_with("#x") || e.starts_with("#X") => {
                        u32::from_str_radix(&e[2..], 16).ok().and_then(char::from_u32)
                    }
                    e if e.starts_with('#') => e[1..].parse().ok().and_then(char::from_u32),
                    _ => None,
                };
                if let Some(c) = c {
                    out.push(c);
                    i += semi + 1;
                    continue;
                }
            }
        }
        let c = html[i..].chars().next().expect("a character");
        // Line breaks in the source are spaces; the tags made the lines.
        out.push(if c == '\n' || c == '\r' { ' ' } else { c });
        i += c.len_utf8();
    }
    out.lines().map(str::trim).collect::<Vec<_>>().join("\n")
}

/// The tag names skipped whole, as static strings.
fn leak(name: &str) -> &'static str {
    match name {
        "script" => "script",
        "style" => "style",
        "head" => "head",
        "blockquote" => "blockquote",
        _ => "title",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        order_lines(text).into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn the_plain_part_is_read_and_quotes_and_signatures_are_cut() {
        let raw = "From: =?utf-8?q?=C3=81sa?= <Asa@Example.org>\r\nTo: play+abc@games.test\r\nMessage-ID: <m1@example.org>\r\n\
                   Content-Type: multipart/alternative; boundary=\"b1\"\r\n\r\n\
                   --b1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n\
                   plan: 2 berserkur 2 go=C3=B0i=\r\n 2 kaupmadur\r\n\r\nOn Tue, 24 Nov 2026, runestone wrote:\r\n> Your move\r\n\
                   --b1\r\nContent-Type: text/html\r\n\r\n<p>ignored</p>\r\n--b1--\r\n";
        let r = Received::parse(raw.as_bytes()).unwrap();
        assert_eq!(r.from_address().as_deref(), Some("asa@example.org"));
        assert_eq!(r.message_id(), "m1@example.org");
        assert!(!r.from_html);
        assert_eq!(lines(&r.text), ["plan: 2 berserkur 2 goði 2 kaupmadur"]);
        assert_eq!(r.automatic(), None);
    }

    #[test]
    fn an_html_only_reply_is_read_as_its_text_without_the_quoted_mail() {
        let raw = "From: a@example.org\nContent-Type: text/html; charset=utf-8\nContent-Transfer-Encoding: base64\n\n".to_owned()
            + &b64("<html><head><style>p{}</style></head><body><div>1</div><div>END</div><br>\
                    <div class=\"gmail_quote\"><div>On Tue wrote:</div><blockquote>plan: 6 godi</blockquote></div></body></html>");
        let r = Received::parse(raw.as_bytes()).unwrap();
        assert!(r.from_html);
        assert_eq!(lines(&r.text), ["1"]);
        assert_eq!(html_to_text("a&amp;b&#33;<br>c &lt;d&gt;"), "a&b!\nc <d>");
    }

    #[test]
    fn end_and_signatures_stop_the_orders_and_lines_keep_their_numbers() {
        let got = order_lines("\n  loot 17 \n\nsow 3\nEND\nsow 4\n");
        assert_eq!(got.iter().map(|l| (l.number, l.text.as_str())).collect::<Vec<_>>(), [(2, "loot 17"), (4, "sow 3")]);
        assert_eq!(lines("1\n-- \nÁsa\n"), ["1"]);
        assert_eq!(lines("1\n> 2\n"), ["1"]);
        assert_eq!(lines("1\n-----Original Message-----\n2"), ["1"]);
        assert_eq!(lines("1\nOn Tue, 24 Nov 2026 at 18:00, runestone <\ngames@runestone.test> wrote:\n2"), ["1"]);
        assert_eq!(order_lines(&"x\n".repeat(500)).len(), MAX_LINES);
    }

    #[test]
    fn auto_replies_bounces_and_lists_are_named() {
        let with = |h: &str| Received::parse(format!("From: a@example.org\n{h}\n\nhi").as_bytes()).unwrap();
        assert!(with("Auto-Submitted: auto-replied").automatic().is_some());
        assert_eq!(with("Auto-Submitted: no").automatic(), None);
        assert!(with("List-Id: <games.example.org>").automatic().is_some());
        assert!(with("Return-Path: <>").automatic().is_some());
        assert!(with("Content-Type: multipart/report; report-type=delivery-status; boundary=x").automatic().is_some());
        assert!(with("Precedence: bulk").automatic().is_some());
    }

    #[test]
    fn authentication_results_count_only_from_the_trusted_mta() {
        let raw = "Authentication-Results: mx.games.test; dkim=pass header.d=example.org; dmarc=pass\n\
                   Authentication-Results: evil.test; dmarc=fail\nFrom: a@example.org\n\nhi";
        let r = Received::parse(raw.as_bytes()).unwrap();
        assert_eq!(r.authenticated_by("mx.games.test"), Some(true));
        assert_eq!(r.authenticated_by("evil.test"), Some(false));
        assert_eq!(r.authenticated_by("other.test"), None);
        let forged =
            Received::parse(b"Authentication-Results: mx.games.test; spf=fail; dkim=none\nFrom: a@b.c\n\nx").unwrap();
        assert_eq!(forged.authenticated_by("mx.games.test"), Some(false));
    }

    #[test]
    fn addresses_are_read_past_display_names() {
        assert_eq!(addresses("\"Doe, J <x>\" <J@Example.org>, b@c.d (Bee)"), ["j@example.org", "b@c.d"]);
        assert!(addresses("undisclosed-recipients:;").is_empty());
    }

    fn b64(s: &str) -> String {
        const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in s.as_bytes().chunks(3) {
            let n = chunk.iter().enumerate().fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
            for i in 0..=chunk.len() {
                out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            }
            for _ in chunk.len()..3 {
                out.push('=');
            }
        }
        out
    }
}
