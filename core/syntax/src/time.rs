//! Dates and times as X12 writes them, with no clock: "now" is always a
//! parameter (the CLI, C, the server and native bindings read the system
//! clock through [`crate::clock`]; the browser passes `Date.now()`), so every
//! path works on `wasm32-unknown-unknown`.

use crate::error::{Error, ErrorCode};
use std::fmt;

/// A real calendar date and a time of day (UTC by convention), to the minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime {
    year: u16,
    month: u8,
    day: u8,
    hour: u8,
    minute: u8,
}

/// True for a Gregorian leap year.
fn leap(year: u16) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// Days in `month` (1–12) of `year`.
pub(crate) fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

impl DateTime {
    /// A date and time from its parts; `INVALID_TIMESTAMP` unless it is a real
    /// date (year 1–9999) and time (00:00–23:59).
    pub fn new(year: u16, month: u8, day: u8, hour: u8, minute: u8) -> Result<Self, Error> {
        if !(1..=9999).contains(&year)
            || !(1..=12).contains(&month)
            || day == 0
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
        {
            return Err(Error::new(
                ErrorCode::InvalidTimestamp,
                format!(
                    "{year:04}-{month:02}-{day:02} {hour:02}:{minute:02} is not a real date and time"
                ),
            ));
        }
        Ok(DateTime {
            year,
            month,
            day,
            hour,
            minute,
        })
    }

    /// Reads `date` as CCYYMMDD and `time` as HHMM; `INVALID_TIMESTAMP`
    /// (pointer `/date` or `/time`) unless both are digits of a real date and time.
    pub fn parse(date: &str, time: &str) -> Result<Self, Error> {
        fn digits(s: &str, n: usize) -> Option<Vec<u16>> {
            (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.bytes().map(|b| u16::from(b - b'0')).collect())
        }
        let d = digits(date, 8).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidTimestamp,
                format!("the date must be 8 digits, CCYYMMDD; found {date:?}"),
            )
            .at("/date")
        })?;
        let t = digits(time, 4).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidTimestamp,
                format!("the time must be 4 digits, HHMM; found {time:?}"),
            )
            .at("/time")
        })?;
        let year = d[0] * 1000 + d[1] * 100 + d[2] * 10 + d[3];
        let month = (d[4] * 10 + d[5]) as u8;
        let day = (d[6] * 10 + d[7]) as u8;
        let hour = (t[0] * 10 + t[1]) as u8;
        let minute = (t[2] * 10 + t[3]) as u8;
        let pointer = if hour > 23 || minute > 59 {
            "/time"
        } else {
            "/date"
        };
        DateTime::new(year, month, day, hour, minute).map_err(|_| {
            Error::new(
                ErrorCode::InvalidTimestamp,
                format!("{date} {time} is not a real date (CCYYMMDD) and time (HHMM)"),
            )
            .at(pointer)
        })
    }

    /// Optional `date` and `time` given together (or neither, then `now`);
    /// one without the other is `INVALID_TIMESTAMP`.
    pub fn from_options(
        date: Option<&str>,
        time: Option<&str>,
        now: DateTime,
    ) -> Result<Self, Error> {
        match (date, time) {
            (None, None) => Ok(now),
            (Some(d), Some(t)) => DateTime::parse(d, t),
            (Some(_), None) => Err(Error::new(
                ErrorCode::InvalidTimestamp,
                "a date was given without a time: give both (CCYYMMDD and HHMM) or neither",
            )
            .at("/time")),
            (None, Some(_)) => Err(Error::new(
                ErrorCode::InvalidTimestamp,
                "a time was given without a date: give both (CCYYMMDD and HHMM) or neither",
            )
            .at("/date")),
        }
    }

    /// The UTC date and time of a Unix timestamp in seconds (the one
    /// civil-from-days conversion of the crate; H. Hinnant's algorithm).
    pub fn from_unix(secs: u64) -> Self {
        let days = (secs / 86_400) as i64;
        let rem = secs % 86_400;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
        let year = yoe + era * 400 + i64::from(month <= 2);
        if year > 9999 {
            return DateTime {
                year: 9999,
                month: 12,
                day: 31,
                hour: 23,
                minute: 59,
            };
        }
        DateTime {
            year: year as u16,
            month,
            day,
            hour: (rem / 3600) as u8,
            minute: (rem % 3600 / 60) as u8,
        }
    }

    /// The year (1–9999).
    pub fn year(&self) -> u16 {
        self.year
    }
    /// The month (1–12).
    pub fn month(&self) -> u8 {
        self.month
    }
    /// The day of the month (1–31).
    pub fn day(&self) -> u8 {
        self.day
    }
    /// The hour (0–23).
    pub fn hour(&self) -> u8 {
        self.hour
    }
    /// The minute (0–59).
    pub fn minute(&self) -> u8 {
        self.minute
    }

    /// CCYYMMDD (GS04 and document dates).
    pub fn ccyymmdd(&self) -> String {
        format!("{:04}{:02}{:02}", self.year, self.month, self.day)
    }

    /// YYMMDD (ISA09).
    pub fn yymmdd(&self) -> String {
        format!("{:02}{:02}{:02}", self.year % 100, self.month, self.day)
    }

    /// HHMM (ISA10, GS05).
    pub fn hhmm(&self) -> String {
        format!("{:02}{:02}", self.hour, self.minute)
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_real_dates_only() {
        let t = DateTime::parse("20240229", "2359").unwrap();
        assert_eq!(
            (t.ccyymmdd(), t.yymmdd(), t.hhmm()),
            ("20240229".into(), "240229".into(), "2359".into())
        );
        for (d, tm, ptr) in [
            ("20231399", "1200", "/date"),
            ("20230229", "1200", "/date"),
            ("20230431", "1200", "/date"),
            ("2023011", "1200", "/date"),
            ("2023-1-1", "1200", "/date"),
            ("20230101", "2400", "/time"),
            ("20230101", "1260", "/time"),
            ("20230101", "12:0", "/time"),
            ("00000101", "1200", "/date"),
        ] {
            let e = DateTime::parse(d, tm).unwrap_err();
            assert_eq!(e.code(), ErrorCode::InvalidTimestamp, "{d} {tm}");
            assert_eq!(e.pointer(), Some(ptr), "{d} {tm}");
        }
    }

    #[test]
    fn from_unix_is_the_civil_calendar() {
        assert_eq!(DateTime::from_unix(0).to_string(), "1970-01-01 00:00");
        assert_eq!(
            DateTime::from_unix(951_782_400).to_string(),
            "2000-02-29 00:00"
        );
        assert_eq!(
            DateTime::from_unix(1_700_000_000).to_string(),
            "2023-11-14 22:13"
        );
        assert_eq!(
            DateTime::from_unix(u64::MAX).to_string(),
            "9999-12-31 23:59"
        );
        // Every day of four centuries round-trips through parse.
        for day in (0..146_097u64).step_by(7) {
            let t = DateTime::from_unix(day * 86_400 + 3_599);
            assert_eq!(DateTime::parse(&t.ccyymmdd(), &t.hhmm()).unwrap(), t);
        }
    }

    #[test]
    fn from_options_needs_both_or_neither() {
        let now = DateTime::from_unix(0);
        assert_eq!(DateTime::from_options(None, None, now).unwrap(), now);
        assert_eq!(
            DateTime::from_options(Some("20240101"), None, now)
                .unwrap_err()
                .pointer(),
            Some("/time")
        );
        assert_eq!(
            DateTime::from_options(None, Some("1200"), now)
                .unwrap_err()
                .pointer(),
            Some("/date")
        );
    }
}
