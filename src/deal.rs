//! Dealing hands from a shuffled deck (seed 000's Dou Dizhu deal).
