/**
 * This replica no longer leads: its lease was taken over, or not renewed within renewDeadline. The
 * manager's start() rejects with it, and the transport refuses writes with it once the lease lapsed.
 */
export class LeaderElectionLostError extends Error {
  override readonly name = 'LeaderElectionLostError';

  constructor(message = 'leader election lost') {
    super(message);
  }
}
