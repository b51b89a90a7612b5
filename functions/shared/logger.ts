import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs. Never pass tokens, passwords or request bodies to it. */
export const logger = new Logger({ serviceName: 'inkpress' });
