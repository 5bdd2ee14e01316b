/**
 * An upstream stream whose body ended cleanly before its final event (no finish reason, no
 * message_stop, no response.completed): the attempts treat it as they treat a reset mid-stream, so the
 * client is told of the interruption, the log records it, and no interim usage is billed as final.
 */
export class StreamEndedMidAnswer extends Error {
  constructor() {
    super('the upstream ended its stream before its final event');
  }
}
