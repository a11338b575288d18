/**
 * The parts of a task store that several instances need (task-store.ts):
 * leases — who runs which task — and the checkpoints of resumable tasks —
 * what another instance needs to carry one on. With their memory
 * implementations, held as JSON text, so what a caller gets back is a copy it
 * cannot change in the store.
 */

import type { JsonValue } from '../protocol/types.js';
import { ExpiringMap } from './expiring-map.js';

/** Who runs which task: one owner at a time, for as long as it renews. */
export interface TaskLeases {
  /** Takes the lease for `owner` for `ms`, unless someone holds it (atomic: of concurrent claims, one wins). */
  claim(taskId: string, owner: string, ms: number): Promise<boolean>;
  /** Extends the lease while `owner` holds it; false when it does not (it lapsed, or another took it). */
  renew(taskId: string, owner: string, ms: number): Promise<boolean>;
  /** Gives the lease up, if `owner` holds it. */
  release(taskId: string, owner: string): Promise<void>;
  held(taskId: string): Promise<boolean>;
}

/** Steps done and questions answered by a resumable task, expiring with it. */
export interface TaskCheckpoint {
  /** Results of the steps done (`task.once`), by name. */
  steps: Record<string, JsonValue>;
  /** Answers to the task's questions, by key: the first one recorded for each. */
  answers: Record<string, unknown>;
}

export interface TaskCheckpoints {
  /**
   * Records a step's result while `owner` holds the task's lease (false, and
   * nothing recorded, when it does not: another instance took the task over).
   * Kept until `expiresAt`, the task's own end.
   */
  saveStep(taskId: string, owner: string, name: string, value: JsonValue, expiresAt: number): Promise<boolean>;
  /** Records answers, the first for each key winning; the answers now recorded for those keys. */
  saveAnswers(taskId: string, answers: Record<string, unknown>, expiresAt: number): Promise<Record<string, unknown>>;
  /** What the task recorded (nothing, for an unknown one). */
  read(taskId: string): Promise<TaskCheckpoint>;
  /**
   * Live resumable tasks whose lease lapsed, for a sweep: looks at up to
   * `count` of them from `cursor` (0 to start) and says where to go on (0 after the last).
   */
  lapsed(cursor: number, count: number): Promise<{ taskIds: string[]; cursor: number }>;
}

export class MemoryTaskLeases implements TaskLeases {
  /** Task id → its owner, until the lease lapses. */
  private readonly owners: ExpiringMap<string, string>;

  constructor(private readonly clock: () => number) {
    this.owners = new ExpiringMap({ clock });
  }

  claim(taskId: string, owner: string, ms: number): Promise<boolean> {
    return Promise.resolve(this.owners.setIfAbsent(taskId, owner, this.clock() + ms));
  }

  renew(taskId: string, owner: string, ms: number): Promise<boolean> {
    if (this.owners.get(taskId) !== owner) return Promise.resolve(false);
    this.owners.set(taskId, owner, this.clock() + ms);
    return Promise.resolve(true);
  }

  release(taskId: string, owner: string): Promise<void> {
    if (this.owners.get(taskId) === owner) this.owners.delete(taskId);
    return Promise.resolve();
  }

  held(taskId: string): Promise<boolean> {
    return Promise.resolve(this.owners.has(taskId));
  }

  ownerOf(taskId: string): string | undefined {
    return this.owners.get(taskId);
  }
}

interface Recorded {
  steps: Map<string, string>;
  answers: Map<string, string>;
}

export class MemoryTaskCheckpoints implements TaskCheckpoints {
  private readonly recorded: ExpiringMap<string, Recorded>;
  /** Resumable tasks the sweep looks at; dropped once gone or finished. */
  private readonly resumable = new Set<string>();

  constructor(
    clock: () => number,
    private readonly leases: MemoryTaskLeases,
    /** Whether the task is known and still live. */
    private readonly live: (taskId: string) => boolean,
  ) {
    this.recorded = new ExpiringMap({ clock });
  }

  /** A resumable task was created. */
  track(taskId: string): void {
    this.resumable.add(taskId);
  }

  saveStep(taskId: string, owner: string, name: string, value: JsonValue, expiresAt: number): Promise<boolean> {
    if (this.leases.ownerOf(taskId) !== owner) return Promise.resolve(false);
    this.record(taskId, expiresAt).steps.set(name, JSON.stringify(value));
    return Promise.resolve(true);
  }

  saveAnswers(taskId: string, answers: Record<string, unknown>, expiresAt: number): Promise<Record<string, unknown>> {
    const record = this.record(taskId, expiresAt);
    const now: Record<string, unknown> = {};
    for (const [key, answer] of Object.entries(answers)) {
      if (!record.answers.has(key)) record.answers.set(key, JSON.stringify(answer));
      now[key] = JSON.parse(record.answers.get(key)!);
    }
    return Promise.resolve(now);
  }

  read(taskId: string): Promise<TaskCheckpoint> {
    const record = this.recorded.get(taskId);
    const parsed = (map: Map<string, string> | undefined) => Object.fromEntries([...(map ?? [])].map(([key, json]) => [key, JSON.parse(json) as JsonValue]));
    return Promise.resolve({ steps: parsed(record?.steps), answers: parsed(record?.answers) });
  }

  lapsed(cursor: number, count: number): Promise<{ taskIds: string[]; cursor: number }> {
    const ids = [...this.resumable];
    const end = Math.min(ids.length, cursor + count);
    const taskIds: string[] = [];
    let dropped = 0;
    for (const id of ids.slice(cursor, end)) {
      if (!this.live(id)) {
        this.resumable.delete(id);
        dropped++;
      } else if (this.leases.ownerOf(id) === undefined) taskIds.push(id);
    }
    return Promise.resolve({ taskIds, cursor: end >= ids.length ? 0 : end - dropped });
  }

  private record(taskId: string, expiresAt: number): Recorded {
    let record = this.recorded.get(taskId);
    if (!record) this.recorded.set(taskId, (record = { steps: new Map(), answers: new Map() }), expiresAt);
    return record;
  }
}
