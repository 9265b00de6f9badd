package io.infera.router.tokenize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.openhft.hashing.LongHashFunction;

/**
 * Token ids of rendered prompts seen before, reusable up to an added-token boundary.
 *
 * <p>Why it is exact: a Hugging Face tokenizer first splits text at added tokens (leftmost-longest)
 * and tokenizes every piece on its own, so for a boundary {@code b} right after an added token that
 * absorbs no neighbouring whitespace, {@code encode(T) = encode(T[:b]) ++ encode(T[b:])}. {@link
 * PromptTokenizer} checks this per tokenizer at load and disables reuse when it fails.
 *
 * <p>Keys are a chained 128-bit hash of the text up to each boundary; values point into the stored
 * id array of the request they came from. Bounded by total stored tokens (LRU by request).
 * Thread-safe.
 */
final class PrefixCache {

  private static final LongHashFunction H1 = LongHashFunction.xx3(0x9E3779B97F4A7C15L);

  private record Key(long a, long b) {}

  private record Stored(int[] ids, List<Key> keys) {}

  private record Ref(Stored stored, int tokens) {}

  /**
   * A reusable prefix: the first {@code chars} chars of the text encode to {@code ids}, a copy of
   * the first ids of {@code source} (the stored encoding they came from, never to be modified).
   */
  record Hit(int chars, int[] ids, int[] source) {}

  /** Boundaries of one text: char positions, cumulative hashes, added-token ordinals. */
  record Scan(int[] positions, long[] hashA, long[] hashB, int[] ordinals, int addedTokens) {}

  private final List<HfTokenizer.AddedToken> tokens;
  private final Map<Character, List<HfTokenizer.AddedToken>> byFirstChar = new HashMap<>();
  private final java.util.Set<Integer> addedIds = new java.util.HashSet<>();
  private final long maxTokens;
  private final LinkedHashMap<Stored, Boolean> lru = new LinkedHashMap<>(16, 0.75f, true);
  private final Map<Key, Ref> index = new HashMap<>();
  private long storedTokens;
  private long hits;
  private long misses;
  private long mismatches;

  PrefixCache(List<HfTokenizer.AddedToken> addedTokens, long maxTokens) {
    this.tokens = List.copyOf(addedTokens);
    this.maxTokens = maxTokens;
    for (HfTokenizer.AddedToken t : tokens) {
      if (t.content().isEmpty()) {
        continue;
      }
      byFirstChar.computeIfAbsent(t.content().charAt(0), c -> new ArrayList<>()).add(t);
      addedIds.add(t.id());
    }
    for (List<HfTokenizer.AddedToken> l : byFirstChar.values()) {
      l.sort((x, y) -> Integer.compare(y.content().length(), x.content().length()));
    }
  }

  /** Finds added-token occurrences (leftmost-longest) and hashes the text up to each clean one. */
  Scan scan(String text) {
    List<Integer> positions = new ArrayList<>();
    List<Integer> ordinals = new ArrayList<>();
    int ordinal = 0;
    int i = 0;
    int n = text.length();
    while (i < n) {
      List<HfTokenizer.AddedToken> candidates = byFirstChar.get(text.charAt(i));
      HfTokenizer.AddedToken match = null;
      if (candidates != null) {
        for (HfTokenizer.AddedToken t : candidates) {
          if (text.startsWith(t.content(), i)) {
            match = t;
            break;
          }
        }
      }
      if (match == null) {
        i++;
        continue;
      }
      i += match.content().length();
      ordinal++;
      if (match.isCleanBoundary()) {
        positions.add(i);
        ordinals.add(ordinal);
      }
    }
    int[] pos = positions.stream().mapToInt(Integer::intValue).toArray();
    long[] a = new long[pos.length];
    long[] b = new long[pos.length];
    long ha = 0;
    long hb = 0x5851F42D4C957F2DL;
    int from = 0;
    for (int k = 0; k < pos.length; k++) {
      long seg = H1.hashChars(text, from, pos[k] - from);
      ha = LongHashFunction.xx3(ha).hashLongs(new long[] {seg, pos[k]});
      hb = LongHashFunction.xx3(hb ^ 0x2545F4914F6CDD1DL).hashLongs(new long[] {seg, ha});
      a[k] = ha;
      b[k] = hb;
      from = pos[k];
    }
    return new Scan(pos, a, b, ordinals.stream().mapToInt(Integer::intValue).toArray(), ordinal);
  }

  /** The longest cached prefix of the scanned text, or null. */
  synchronized Hit find(Scan scan) {
    for (int k = scan.positions().length - 1; k >= 0; k--) {
      Ref ref = index.get(new Key(scan.hashA()[k], scan.hashB()[k]));
      if (ref != null) {
        lru.get(ref.stored());
        hits++;
        int[] source = ref.stored().ids();
        return new Hit(scan.positions()[k], Arrays.copyOf(source, ref.tokens()), source);
      }
    }
    misses++;
    return null;
  }

  /** Remembers the full encoding of a scanned text, indexed at every clean boundary. */
  void remember(Scan scan, int[] ids) {
    // Token index right after the k-th added-token occurrence.
    int[] after = new int[scan.addedTokens() + 1];
    int seen = 0;
    for (int i = 0; i < ids.length && seen < scan.addedTokens(); i++) {
      if (addedIds.contains(ids[i])) {
        after[++seen] = i + 1;
      }
    }
    if (seen != scan.addedTokens() || scan.positions().length == 0) {
      synchronized (this) {
        if (seen != scan.addedTokens()) {
          mismatches++;
        }
      }
      return;
    }
    List<Key> keys = new ArrayList<>(scan.positions().length);
    for (int k = 0; k < scan.positions().length; k++) {
      keys.add(new Key(scan.hashA()[k], scan.hashB()[k]));
    }
    Stored stored = new Stored(ids, keys);
    synchronized (this) {
      for (int k = 0; k < keys.size(); k++) {
        index.put(keys.get(k), new Ref(stored, after[scan.ordinals()[k]]));
      }
      lru.put(stored, Boolean.TRUE);
      storedTokens += ids.length;
      var it = lru.keySet().iterator();
      while (storedTokens > maxTokens && it.hasNext()) {
        Stored old = it.next();
        if (old == stored && lru.size() == 1) {
          break;
        }
        it.remove();
        storedTokens -= old.ids().length;
        for (Key key : old.keys()) {
          Ref r = index.get(key);
          if (r != null && r.stored() == old) {
            index.remove(key);
          }
        }
      }
    }
  }

  synchronized long hits() {
    return hits;
  }

  synchronized long misses() {
    return misses;
  }

  synchronized long mismatches() {
    return mismatches;
  }

  synchronized long storedTokens() {
    return storedTokens;
  }
}
