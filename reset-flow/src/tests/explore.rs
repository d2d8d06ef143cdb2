//! The exhaustive explorer.
