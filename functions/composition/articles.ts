/** Articles: the article store and what reading articles needs. */
import { DynamoArticleRepository } from '../adapters/dynamodb/article-repository';
import type { ArticleStore } from '../core/articles/ports';
import type { ReadArticlesDeps } from '../core/articles/read-articles';
import type { QueuedGenerations } from '../core/articles/resend-unfinished';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';
import { categoryStore, websiteStore } from './websites';

/** Reads only the tables the function declares (an undeclared one throws when used). */
export function articleStore(config: Config): ArticleStore & QueuedGenerations {
  return new DynamoArticleRepository(dynamoDocumentClient(), config.tables);
}

/** What reading articles needs (show, list, queue), and the base of what changing them needs. */
export function readArticleDeps(config: Config): ReadArticlesDeps & { articles: ArticleStore } {
  return {
    articles: articleStore(config),
    websites: websiteStore(config),
    categories: categoryStore(config),
  };
}
