//! Requests whose head cannot be read at all (a path over the 65,534 bytes a
//! URI may have, a head over 128 KiB, a request line that is not HTTP).
//!
//! actix-http answers these itself, before any route or middleware runs:
//! its h1 dispatcher queues `Response::bad_request().drop_body()` for a
//! parse error and a bare 431 for a head over its buffer, then closes the
//! connection (`actix-http` 3.20, `src/h1/dispatcher.rs`, the
//! `Err(ParseError::TooLarge)` and `Err(err)` arms of `poll_request`). No
//! setting reaches those answers, so [`HeadGuard`] wraps each connection and
//! puts a problem+json in the API's words in place of such an empty answer
//! as it is written.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// A connection whose empty 400 and 431 answers (those only actix-http's
/// own parser gives: every handler's error has a body) are replaced by
/// problem+json ones.
pub struct HeadGuard<T> {
    io: T,
    /// A replacement being written, and how much of it is out; with the
    /// length of the original it stands for.
    replacing: Option<(Vec<u8>, usize, usize)>,
}

impl<T> HeadGuard<T> {
    pub fn new(io: T) -> HeadGuard<T> {
        HeadGuard { io, replacing: None }
    }
}

/// The problem+json answer that replaces `written`, if `written` is one
/// whole empty 400 or 431 answer.
fn replacement(written: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(written).ok()?;
    let (status_line, rest) = text.split_once("\r\n")?;
    let (version, status) = status_line.split_once(' ')?;
    if !version.starts_with("HTTP/1.") || !rest.ends_with("\r\n\r\n") || rest.contains("HTTP/1.") {
        return None;
    }
    let headers = rest.to_ascii_lowercase();
    if !headers.lines().any(|l| l.trim() == "content-length: 0") {
        return None;
    }
    let (code, title, detail) = if status.starts_with("400 ") {
        (
            400,
            "Bad request",
            "the request could not be read as HTTP: its request line or a header is malformed, \
             or its path is over 65,534 bytes; see /openapi.json for the routes served",
        )
    } else if status.starts_with("431 ") {
        (
            431,
            "Request head too large",
            "the request's line and headers are over 128 KiB together; send a shorter path and fewer headers",
        )
    } else {
        return None;
    };
    let body = serde_json::to_string(&super::types::Problem {
        kind: format!("https://runestone.invalid/problems/{}", title.to_lowercase().replace(' ', "-")),
        title: title.into(),
        status: code,
        detail: detail.into(),
        pending: None,
        head: None,
        expected_seq: None,
    })
    .expect("JSON");
    Some(
        format!(
            "{version} {status}\r\ncontent-type: application/problem+json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

impl<T: AsyncRead + Unpin> AsyncRead for HeadGuard<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for HeadGuard<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.replacing.is_none() && buf.len() < 1024 {
            if let Some(r) = replacement(buf) {
                this.replacing = Some((r, 0, buf.len()));
            }
        }
        let Some((r, sent, stands_for)) = &mut this.replacing else {
            return Pin::new(&mut this.io).poll_write(cx, buf);
        };
        while *sent < r.len() {
            match Pin::new(&mut this.io).poll_write(cx, &r[*sent..]) {
                Poll::Ready(Ok(0)) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Poll::Ready(Ok(n)) => *sent += n,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
        let n = *stands_for;
        this.replacing = None;
        Poll::Ready(Ok(n))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::replacement;

    #[test]
    fn only_an_empty_400_or_431_is_replaced() {
        let empty = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\ndate: x\r\n\r\n";
        let r = String::from_utf8(replacement(empty).unwrap()).unwrap();
        assert!(r.starts_with("HTTP/1.1 400 Bad Request\r\ncontent-type: application/problem+json\r\n"), "{r}");
        assert!(r.contains("65,534 bytes"), "{r}");
        let big = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\r\n";
        assert!(String::from_utf8(replacement(big).unwrap()).unwrap().contains("128 KiB"));
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 12\r\n\r\n{\"a\": true}\n";
        assert!(replacement(ours).is_none());
        let fine = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(fine).is_none());
        let two = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\nHTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n";
        assert!(replacement(two).is_none());
    }
}
