/** Test double of the sweeper for the local scheduler: records every ScheduledEvent. */
import type { ScheduledEvent } from 'aws-lambda';

export const received: ScheduledEvent[] = [];

export async function handler(event: ScheduledEvent): Promise<void> {
  received.push(event);
}
