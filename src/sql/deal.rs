//! SQL functions for dealing: deal_cards and its tables, card labels, deal_hands.
