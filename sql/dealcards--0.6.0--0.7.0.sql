-- dealcards 0.6.0 -> 0.7.0 (ALTER EXTENSION dealcards UPDATE TO '0.7.0').
--
-- Each section below adds what one part of 0.7.0 adds to a fresh install; tests/upgrade.rs
-- compares a database updated through this script with a fresh install, object for object.
\echo Use "ALTER EXTENSION dealcards UPDATE TO '0.7.0'" to load this file. \quit
