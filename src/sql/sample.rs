//! SQL functions shuffling and sampling arrays of any type, and sampling integer ranges.
