CREATE EXTENSION IF NOT EXISTS dealcards;
-- A fair permutation of 1..10 from a cryptographic generator; a new one on every call.
SELECT shuffle_ints(1, 10);
SELECT shuffle_ints(1, 10);
-- Replayable: the same 32-byte seed gives the same permutation, everywhere, forever.
SELECT shuffle_ints(1, 10, decode(repeat('00', 32), 'hex'));
