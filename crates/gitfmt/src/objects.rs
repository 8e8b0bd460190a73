//! git's object store as far as the gate asks it one question: which
//! objects does an abbreviated id name, and of what type are they. A
//! `git show 4c1e9a2` prints a commit's log entry and patch when the id is a
//! commit, but a file's whole content when it is a blob — a secret's, if one
//! was ever committed (`git log --raw` lists the ids). The formats read here:
//! a loose object's header (after the caller inflated its first bytes), a
//! pack index (version 2) and the entry headers of a pack.
//!
//! Pure functions over bytes the caller read; the caller decides how much
//! to read, and every function answers `None` for bytes it does not fully
//! understand (the caller then treats the id as "not known to be a commit").

/// An object's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Commit,
    Tree,
    Blob,
    Tag,
}

impl Kind {
    fn from_pack(code: u8) -> Option<Kind> {
        match code {
            1 => Some(Kind::Commit),
            2 => Some(Kind::Tree),
            3 => Some(Kind::Blob),
            4 => Some(Kind::Tag),
            _ => None,
        }
    }
}

/// The type named by a loose object's inflated header (`commit 241\0…`).
pub fn loose_kind(inflated: &[u8]) -> Option<Kind> {
    let nul = inflated.iter().position(|&b| b == 0)?;
    let head = std::str::from_utf8(&inflated[..nul]).ok()?;
    let (name, size) = head.split_once(' ')?;
    if size.is_empty() || !size.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match name {
        "commit" => Some(Kind::Commit),
        "tree" => Some(Kind::Tree),
        "blob" => Some(Kind::Blob),
        "tag" => Some(Kind::Tag),
        _ => None,
    }
}

/// A hexadecimal object-id prefix, lower-cased: 4 to 40 hex digits (git's
/// shortest abbreviation is 4; SHA-1 ids are 40).
pub fn id_prefix(text: &str) -> Option<String> {
    (4..=40).contains(&text.len()).then_some(())?;
    text.bytes()
        .all(|b| b.is_ascii_hexdigit())
        .then(|| text.to_ascii_lowercase())
}

/// Whether the 20-byte id `id` starts with the hex `prefix` (lower case).
pub fn id_matches(id: &[u8], prefix: &str) -> bool {
    let hex = to_hex(id);
    hex.starts_with(prefix)
}

/// Lower-case hex of bytes.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// Size of a SHA-1 id.
pub const ID_LEN: usize = 20;

/// Bytes of a version-2 pack index before its name table: magic, version
/// and the 256-entry fan-out table.
pub const IDX_HEAD: usize = 8 + 256 * 4;

/// The fan-out table of a version-2 pack index, read from its first
/// [`IDX_HEAD`] bytes: entry `b` counts the ids whose first byte is at
/// most `b`. `None` for any other version (version 1 has no magic).
pub fn idx_fanout(head: &[u8]) -> Option<Vec<u32>> {
    if head.len() < IDX_HEAD || head[..4] != [0xff, b't', b'O', b'c'] || be32(&head[4..8])? != 2 {
        return None;
    }
    let fan: Vec<u32> = head[8..IDX_HEAD].chunks_exact(4).filter_map(be32).collect();
    // Monotone, as git writes it.
    fan.windows(2).all(|w| w[0] <= w[1]).then_some(fan)
}

/// The range of name-table positions whose ids start with byte `first`.
pub fn idx_range(fan: &[u32], first: u8) -> (u32, u32) {
    let hi = fan[first as usize];
    let lo = if first == 0 {
        0
    } else {
        fan[first as usize - 1]
    };
    (lo, hi.max(lo))
}

/// Where, in a version-2 index of `n` objects, the name of entry `i` is.
pub fn idx_name_at(i: u32) -> u64 {
    IDX_HEAD as u64 + u64::from(i) * ID_LEN as u64
}

/// Where the 32-bit offset of entry `i` is (after names and CRCs).
pub fn idx_offset_at(n: u32, i: u32) -> u64 {
    IDX_HEAD as u64 + u64::from(n) * (ID_LEN as u64 + 4) + u64::from(i) * 4
}

/// A 32-bit offset field's meaning: the pack offset, or (high bit set) the
/// index into the 64-bit offset table that follows.
pub enum Offset {
    Pack(u64),
    Large(u32),
}

/// Read a 32-bit offset field.
pub fn idx_offset(field: &[u8]) -> Option<Offset> {
    let v = be32(field)?;
    Some(if v & 0x8000_0000 != 0 {
        Offset::Large(v & 0x7fff_ffff)
    } else {
        Offset::Pack(u64::from(v))
    })
}

/// Where the 64-bit offset `k` of an index of `n` objects is.
pub fn idx_large_at(n: u32, k: u32) -> u64 {
    IDX_HEAD as u64 + u64::from(n) * (ID_LEN as u64 + 8) + u64::from(k) * 8
}

/// Read a 64-bit offset.
pub fn be64(b: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(b.get(..8)?.try_into().ok()?))
}

fn be32(b: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(..4)?.try_into().ok()?))
}

/// What a pack entry's header says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A whole object of this type.
    Object(Kind),
    /// A delta against the entry at this pack offset (its type is the base's).
    OfsDelta(u64),
    /// A delta against the object with this id.
    RefDelta(Vec<u8>),
}

/// Bytes enough for any entry header: type and size (at most 10 bytes for
/// a 64-bit size), then a delta's base (an offset of at most 10 bytes, or
/// a 20-byte id).
pub const ENTRY_HEAD: usize = 32;

/// The header of the pack entry at `offset`, from its first bytes.
pub fn pack_entry(head: &[u8], offset: u64) -> Option<Entry> {
    let mut i = 0;
    let first = *head.first()?;
    let code = (first >> 4) & 7;
    let mut c = first;
    while c & 0x80 != 0 {
        i += 1;
        c = *head.get(i)?;
        if i > 10 {
            return None;
        }
    }
    i += 1;
    match code {
        6 => {
            let mut c = *head.get(i)?;
            let mut ofs = u64::from(c & 0x7f);
            let mut n = 0;
            while c & 0x80 != 0 {
                i += 1;
                n += 1;
                // 9 bytes carry 63 bits: no more, or the sum would wrap.
                if n > 8 {
                    return None;
                }
                c = *head.get(i)?;
                ofs = ofs.checked_add(1)?.checked_shl(7)? | u64::from(c & 0x7f);
            }
            if ofs == 0 || ofs > offset {
                return None;
            }
            Some(Entry::OfsDelta(offset - ofs))
        }
        7 => Some(Entry::RefDelta(head.get(i..i + ID_LEN)?.to_vec())),
        other => Kind::from_pack(other).map(Entry::Object),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loose_headers() {
        assert_eq!(loose_kind(b"commit 241\0tree "), Some(Kind::Commit));
        assert_eq!(loose_kind(b"blob 12\0SECRET"), Some(Kind::Blob));
        assert_eq!(loose_kind(b"tag 9\0"), Some(Kind::Tag));
        assert_eq!(loose_kind(b"commit 2x1\0"), None);
        assert_eq!(loose_kind(b"commit 241"), None);
        assert_eq!(loose_kind(b"weird 1\0"), None);
    }

    #[test]
    fn prefixes() {
        assert_eq!(id_prefix("4C1E9a2").as_deref(), Some("4c1e9a2"));
        assert_eq!(id_prefix("abc"), None);
        assert_eq!(id_prefix("main"), None);
        assert_eq!(id_prefix(&"a".repeat(41)), None);
        assert!(id_matches(&[0x4c, 0x1e, 0x9a, 0x20], "4c1e9a2"));
        assert!(!id_matches(&[0x4c, 0x1e, 0x9b, 0x20], "4c1e9a2"));
    }

    #[test]
    fn entry_headers() {
        // commit, size 5
        assert_eq!(pack_entry(&[0x15], 12), Some(Entry::Object(Kind::Commit)));
        // blob with a two-byte size
        assert_eq!(
            pack_entry(&[0xb0, 0x01], 12),
            Some(Entry::Object(Kind::Blob))
        );
        // ofs-delta, base 100 bytes back
        assert_eq!(pack_entry(&[0x65, 100], 500), Some(Entry::OfsDelta(400)));
        // two-byte offset: ((1 + 1) << 7) | 2 = 258
        assert_eq!(
            pack_entry(&[0x65, 0x81, 0x02], 1000),
            Some(Entry::OfsDelta(742))
        );
        // a base before the pack's start is not understood
        assert_eq!(pack_entry(&[0x65, 100], 50), None);
        let mut r = vec![0x75];
        r.extend([7u8; 20]);
        assert_eq!(pack_entry(&r, 99), Some(Entry::RefDelta(vec![7; 20])));
        assert_eq!(pack_entry(&[0x75, 1, 2], 99), None);
        // type 5 is reserved
        assert_eq!(pack_entry(&[0x55], 12), None);
        assert_eq!(pack_entry(&[], 12), None);
    }

    #[test]
    fn fanout() {
        let mut head = vec![0xff, b't', b'O', b'c', 0, 0, 0, 2];
        for b in 0..256u32 {
            head.extend((b / 2).to_be_bytes());
        }
        let fan = idx_fanout(&head).unwrap();
        assert_eq!(idx_range(&fan, 0), (0, 0));
        assert_eq!(idx_range(&fan, 3), (1, 1));
        assert_eq!(idx_range(&fan, 4), (1, 2));
        head[7] = 1;
        assert!(idx_fanout(&head).is_none());
    }
}
