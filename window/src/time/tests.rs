//! Dates across epochs, leap days and century rules.

use rstest::rstest;

use super::*;

#[rstest]
#[case(0, "1970-01-01 00:00 UTC")]
#[case(951_782_400, "2000-02-29 00:00 UTC")]
#[case(4_107_542_400, "2100-03-01 00:00 UTC")] // 2100 is not a leap year
#[case(1_733_152_245, "2024-12-02 15:10 UTC")]
#[case(1_735_689_599, "2024-12-31 23:59 UTC")]
fn utc_formatting(#[case] secs: u64, #[case] want: &str) {
    assert_eq!(format_utc(secs), want);
}

#[rstest]
#[case("1970-01-01", Some(0))]
#[case("2000-02-29T00:00:00Z", Some(951_782_400_000))]
#[case("2024-12-02T15:10:45.078Z", Some(1_733_152_245_078))]
#[case("2024-12-02T15:10:45.0789123Z", Some(1_733_152_245_078))]
#[case("2024-12-02 15:10", Some(1_733_152_200_000))]
#[case("2024-12-02T16:10:45+01:00", Some(1_733_152_245_000))]
#[case("2024-12-02T14:10:45-0100", Some(1_733_152_245_000))]
#[case("2024-12-03T00:30:00+01:00", Some(1_733_182_200_000))]
#[case("2023-02-29", None)]
#[case("2024-13-01", None)]
#[case("1969-12-31", None)]
#[case("2024-12-02T25:00Z", None)]
#[case("2024-12-02Tnoon", None)]
#[case("", None)]
#[case("2024-12-0é", None)]
#[case("yesterday", None)]
fn moments_read(#[case] text: &str, #[case] want: Option<u64>) {
    assert_eq!(parse_moment(text), want, "{text}");
}

#[rstest]
#[case(0)]
#[case(951_782_400_000)]
#[case(1_733_152_245_078)]
#[case(4_107_542_400_999)]
fn rfc3339_reads_back_to_the_second(#[case] millis: u64) {
    let written = format_rfc3339(millis);
    assert_eq!(parse_moment(&written), Some(millis / 1000 * 1000));
    // One shape, whatever the moment: `YYYY-MM-DDTHH:MM:SSZ`.
    assert_eq!(written.len(), 20, "{written}");
}
