import type { Clock } from '../core/articles/ports';

export const systemClock: Clock = () => new Date();
