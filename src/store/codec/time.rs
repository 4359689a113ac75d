//! Version 3's compact time: a time written as `YYYY-MM-DDTHH:MM:SS.mmmZ`
//! (as the service writes every event's) is its milliseconds since 1970;
//! any other text is kept as it is.

/// The milliseconds of `text`, if it is a time of that very form.
pub(super) fn millis(t: &str) -> Option<u64> {
    let b = t.as_bytes();
    if b.len() != 24 || [4, 7, 10, 13, 16, 19, 23].iter().zip(b"--T::.Z").any(|(&i, &c)| b[i] != c) {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u64> {
        b[r].iter().try_fold(0u64, |n, &d| d.is_ascii_digit().then(|| n * 10 + u64::from(d - b'0')))
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, min, sec, ms) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) || h > 23 || min > 59 || sec > 59
    {
        return None;
    }
    let days = days_from_civil(y, m, d);
    let total = ((days * 24 + h) * 60 + min) * 60 * 1000 + sec * 1000 + ms;
    // A date that does not exist (the 30th of February) is not this form.
    (text(total) == t).then_some(total)
}

/// The text of milliseconds since 1970, in that form.
pub(super) fn text(ms: u64) -> String {
    let (days, rest) = (ms / 86_400_000, ms % 86_400_000);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

/// Days since 1970-01-01 of a date from 1970 on (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + u64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_of_the_form_round_trip_and_others_are_kept_as_text() {
        for t in [
            "1970-01-01T00:00:00.000Z",
            "2026-01-01T12:06:00.000Z",
            "2024-02-29T23:59:59.999Z",
            "9999-12-31T23:59:59.999Z",
        ] {
            assert_eq!(text(millis(t).expect(t)), t);
        }
        assert_eq!(millis("1970-01-01T00:00:00.001Z"), Some(1));
        assert_eq!(
            millis("2026-01-02T00:00:00.000Z").unwrap() - millis("2026-01-01T00:00:00.000Z").unwrap(),
            86_400_000
        );
        for t in [
            "2026-01-01T00:00:00Z",
            "2026-02-30T00:00:00.000Z",
            "2025-02-29T00:00:00.000Z",
            "1969-12-31T23:59:59.999Z",
            "2026-01-01T24:00:00.000Z",
            "2026-01-01T00:00:00.000+",
            "2026-01-01T00:00:00.000ZZ",
            "２026-01-01T00:00:00.000Z",
            "",
        ] {
            assert_eq!(millis(t), None, "{t}");
        }
    }
}
