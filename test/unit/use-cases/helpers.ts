/** Shared steps of the use-case tests: a valid create input, and the deps each use case takes. */
import {
  type CreateArticleInput,
  createArticleSchema,
} from '../../../functions/core/articles/create-article-input';
import type { Fakes } from '../../support/fakes';

/** A valid create request (gpt-3.5-turbo, 2 H2s: 3 credits), with overrides in wire names. */
export function articleInput(fields: Record<string, unknown> = {}): CreateArticleInput {
  return createArticleSchema().parse({
    keyword: 'sourdough bread',
    h2_count: 2,
    ai_model: 'gpt-3.5-turbo',
    language: 'en',
    ...fields,
  });
}

export const PRICE = 3;

export function createDeps(fakes: Fakes) {
  const { articles, accounts, websites, categories, queue, clock } = fakes;
  return { articles, accounts, websites, categories, queue, clock };
}

export function actionDeps(fakes: Fakes) {
  return { ...createDeps(fakes), publications: fakes.publications };
}

export function generateDeps(fakes: Fakes) {
  return { articles: fakes.articles, models: fakes.models, clock: fakes.clock };
}

export function publishDeps(fakes: Fakes) {
  const { articles, publications, websites, categories, cipher, cms, clock } = fakes;
  return { articles, publications, websites, categories, cipher, cms, clock };
}

export function sweepDeps(fakes: Fakes) {
  const { articles, accounts, queue, clock } = fakes;
  return { articles, accounts, queue, clock };
}
