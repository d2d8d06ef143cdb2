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
