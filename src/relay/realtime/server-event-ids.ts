/**
 * The `event_id`s of the server events the gateway makes up itself in a session (the `error` answering a
 * refused `session.update`, the one that ends a session): each its own, as each of OpenAI's server events
 * has — the session's request id and a count, `evt_<request id>_<n>` from 1 — so two refusals in one session
 * are two events a client (or its log) tells apart. The client event a refusal answers is named in
 * `error.event_id`, not here.
 */
export function serverEventIds(requestId: string): () => string {
  let made = 0;
  return () => `evt_${requestId}_${(made += 1)}`;
}
