//! The 54-card deck: card numbers, labels and Dou Dizhu order.
