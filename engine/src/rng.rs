//! Fair randomness (DESIGN.md §3).
//!
//! Each game has a secret 32-byte seed whose SHA-256 is published when the
//! game is created. Every draw is `HMAC-SHA256(seed, "runestone/draw" ‖ seq ‖ n)`
//! where `seq` is the sequence number of the first event of the decision that
//! draws and `n` counts the draws of that decision. Nothing public enters the
//! derivation, so no player can predict a draw; once the seed is revealed at
//! the end, anyone can re-derive every one.

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

type HmacSha256 = Hmac<Sha256>;

/// A game's secret seed.
#[derive(Clone, PartialEq, Eq)]
pub struct Seed(pub [u8; 32]);

impl std::fmt::Debug for Seed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Seed(..)")
    }
}

impl Seed {
    /// The published commitment: hex SHA-256 of the seed bytes.
    pub fn commitment(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    pub fn from_hex(s: &str) -> Option<Seed> {
        let bytes = hex::decode(s).ok()?;
        Some(Seed(bytes.try_into().ok()?))
    }

    /// A keyed digest of `data` under this seed, with a domain label. Used to
    /// commit to hidden event bodies without revealing them.
    pub fn mac(&self, label: &[u8], data: &[u8]) -> [u8; 32] {
        let mut mac = HmacSha256::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(label);
        mac.update(data);
        mac.finalize().into_bytes().into()
    }
}

/// The random source handed to `setup` and `decide`: a deterministic stream
/// for one decision.
#[derive(Clone, Debug)]
pub struct GameRng {
    seed: Seed,
    seq: u64,
    draws: u32,
}

impl GameRng {
    /// The stream for the decision whose first event gets `seq`.
    pub fn new(seed: Seed, seq: u64) -> Self {
        GameRng { seed, seq, draws: 0 }
    }

    /// How many raw draws were taken.
    pub fn draws(&self) -> u32 {
        self.draws
    }

    /// The next raw 64-bit draw.
    pub fn next_u64(&mut self) -> u64 {
        let mut msg = [0u8; 12];
        msg[..8].copy_from_slice(&self.seq.to_be_bytes());
        msg[8..].copy_from_slice(&self.draws.to_be_bytes());
        self.draws += 1;
        let out = self.seed.mac(b"runestone/draw", &msg);
        u64::from_be_bytes(out[..8].try_into().expect("8 bytes"))
    }

    /// Uniform in `0..n` without modulo bias. `n` must be positive.
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "GameRng::below(0)");
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % n;
            }
        }
    }

    /// A die roll `1..=sides`.
    pub fn roll(&mut self, sides: u8) -> u8 {
        self.below(sides as u64) as u8 + 1
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// Pick one element index of a slice of length `len`.
    pub fn pick(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_and_seq_give_the_same_draws() {
        let seed = Seed([7; 32]);
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = GameRng::new(seed.clone(), 3);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = GameRng::new(seed.clone(), 3);
        let b: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_eq!(a, b);
        let mut other = GameRng::new(seed, 4);
        assert_ne!(a[0], other.next_u64(), "another seq draws differently");
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = GameRng::new(Seed([1; 32]), 0);
        let mut seen = [false; 6];
        for _ in 0..600 {
            let x = r.roll(6);
            assert!((1..=6).contains(&x));
            seen[x as usize - 1] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn commitment_is_sha256_of_the_seed() {
        let seed = Seed([0; 32]);
        assert_eq!(seed.commitment(), "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
    }
}
