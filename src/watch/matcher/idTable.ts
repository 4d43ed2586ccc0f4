// A table by small integer id (a def, paint, sticker or keychain index): a listing's lookups read one array slot each, where a Map's read its hash table and then its entry.

/** Ids below this sit in the dense array; others (negative, fractional, larger) in a Map. */
const DENSE_IDS = 1 << 16;

/**
 * The Map operations the index uses, keyed by number. At a million rules each lookup is a cache
 * miss or two; a hashed lookup chains a bucket read, an entry read and a key compare, an array
 * slot is one read. Item indexes are small integers, so the array stays as long as the largest
 * one in use (a few thousand slots).
 */
export class IdTable<V> {
  private readonly dense: Array<V | undefined> = [];
  private readonly sparse = new Map<number, V>();
  size = 0;

  get(id: number): V | undefined {
    return id >= 0 && id < DENSE_IDS && (id | 0) === id ? this.dense[id] : this.sparse.get(id);
  }

  set(id: number, value: V): void {
    if (id >= 0 && id < DENSE_IDS && (id | 0) === id) {
      if (this.dense[id] === undefined) this.size++;
      // Fill up to id first: the array stays packed (a hole would make every read check for it).
      while (this.dense.length < id) this.dense.push(undefined);
      this.dense[id] = value;
      return;
    }
    if (!this.sparse.has(id)) this.size++;
    this.sparse.set(id, value);
  }

  delete(id: number): boolean {
    if (id >= 0 && id < DENSE_IDS && (id | 0) === id) {
      if (this.dense[id] === undefined) return false;
      this.dense[id] = undefined;
      this.size--;
      return true;
    }
    if (!this.sparse.delete(id)) return false;
    this.size--;
    return true;
  }
}
