/** Articles: the article store and what reading articles needs. */
import { DynamoArticleRepository } from '../adapters/dynamodb/article-repository';
import { DynamoArticleReservations } from '../adapters/dynamodb/article-reservations';
import { DynamoArticleSweeps } from '../adapters/dynamodb/article-sweeps';
import type { CreateArticleDeps } from '../core/articles/create-article';
import type { ArticleStore, GenerationDispatch } from '../core/articles/ports';
import type { ReadArticlesDeps } from '../core/articles/read-articles';
import type { QueuedGenerations } from '../core/articles/resend-unfinished';
import { dynamoDocumentClient } from '../shared/aws/dynamodb';
import type { Config } from '../shared/config';
import { imageStore } from './image-links';
import { categoryStore, websiteStore } from './websites';

/** Reads only the tables the function declares (an undeclared one throws when used). */
export function articleStore(config: Config): ArticleStore & QueuedGenerations {
  return new DynamoArticleRepository(dynamoDocumentClient(), config.tables);
}

/** What reading articles needs (show, list, queue), and the base of what changing them needs. */
export function readArticleDeps(config: Config): ReadArticlesDeps & { articles: ArticleStore } {
  return {
    ...articleBeforeGenerationDeps(config),
    ...(config.imageBucketName ? { imageLinks: imageStore(config) } : {}),
  };
}

/**
 * The same for routes that act on an article before its generation (approve its outline, cancel
 * it): its record holds no stored image yet, so they need no link to one (nor the S3 client).
 */
export function articleBeforeGenerationDeps(config: Config): ReadArticlesDeps & { articles: ArticleStore } {
  return {
    articles: articleStore(config),
    websites: websiteStore(config),
    categories: categoryStore(config),
  };
}

/** What sending generation messages records (a batch's items): each article's sweep time. */
export function generationDispatch(config: Config): GenerationDispatch {
  const sweeps = new DynamoArticleSweeps(dynamoDocumentClient(), config.tables);
  return {
    markSent: (article, recheckAt) => sweeps.markSent(article, recheckAt),
    markSentMany: (articles, recheckAt) => sweeps.markSentMany(articles, recheckAt),
    postponeCheck: (article, nextCheckAt) => sweeps.postponeCheck(article, nextCheckAt),
  };
}

/** What creating an article changes: its reservation, then its sweep time once the message is out. */
export function articleCreation(config: Config): CreateArticleDeps['articles'] {
  const reservations = new DynamoArticleReservations(dynamoDocumentClient(), config.tables);
  const sweeps = new DynamoArticleSweeps(dynamoDocumentClient(), config.tables);
  return {
    createWithReservation: (article, reservation) => reservations.createWithReservation(article, reservation),
    markSent: (article, recheckAt) => sweeps.markSent(article, recheckAt),
    postponeCheck: (article, nextCheckAt) => sweeps.postponeCheck(article, nextCheckAt),
  };
}
