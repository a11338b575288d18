/**
 * GET with `Last-Event-ID` in a 2025-11-25 session: the rest of the stream
 * that event was on, from the session's EventStore (so from any instance
 * sharing it). A request's stream is replayed after that event and then
 * followed until its response (or its cancellation); the standalone stream is
 * replayed and then goes on as the session's stream, every event under a new
 * id. Events of another stream are never sent (2025-11-25 transports:
 * resumability).
 */

import type { EventLog, StreamSink, StreamStatus } from '../protocol/channel.js';
import type { EventStore, StreamEvent } from '../stores/event-store.js';
import type { SessionHandle } from './sessions.js';
import { parseEventId } from './stream-log.js';

export async function resumeStream(
  session: SessionHandle,
  lastEventId: string,
  open: (log?: EventLog) => StreamSink,
  events: EventStore,
  attach: (stream: StreamSink) => void,
  standaloneLog: () => EventLog,
): Promise<StreamStatus> {
  const at = parseEventId(lastEventId);
  if (!at) return { status: 400, message: `Bad request: Last-Event-ID ${JSON.stringify(lastEventId.slice(0, 80))} is not an event id this server gave` };
  const sessionId = session.data.id;

  // Follow first, then read what is held: nothing appended in between is missed (duplicates are skipped by seq).
  let sink: StreamSink | undefined;
  let sent = at.seq;
  const early: StreamEvent[] = [];
  const deliver = (event: StreamEvent): void => {
    if (!sink) return;
    if ('end' in event) {
      following?.stop();
      sink.close();
      return;
    }
    if (event.seq <= sent) return;
    sent = event.seq;
    sink.send(event.message, `${at.streamId}:${event.seq}`);
  };
  const following = at.kind === 'request' ? events.follow(sessionId, at.streamId, (event) => (sink ? deliver(event) : early.push(event))) : undefined;
  await following?.ready;
  const replay = await events.after(sessionId, at.streamId, at.seq);
  if (!replay) {
    following?.stop();
    return { status: 400, message: `Bad request: the events after ${lastEventId} are no longer held (the stream ended too long ago); send the request again` };
  }

  if (at.kind === 'standalone') {
    // The replayed events are recorded again on the new stream, so that it can be resumed from any of its own ids.
    const stream = open(standaloneLog());
    for (const event of replay.events) stream.send(event.message);
    attach(stream);
    return 200;
  }

  // No await from here on: the replay goes out before any event heard live.
  sink = open();
  sink.signal.addEventListener('abort', () => following?.stop());
  for (const event of replay.events) deliver(event);
  if (replay.ended) {
    following?.stop();
    sink.close();
    return 200;
  }
  for (const event of early) deliver(event);
  return 200;
}
