//! Shuffle play and random play for playlists (seed 003's next/previous queue).
