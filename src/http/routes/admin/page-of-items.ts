import { offsetOf, type Page, type PageRequest } from '../../../storage/paging.js';

/** Pages a short list held in full (prices, groups) the same way the repositories page their tables. */
export function pageOfItems<T>(items: readonly T[], request: PageRequest): Page<T> {
  const start = offsetOf(request);
  return { items: items.slice(start, start + request.pageSize), total: items.length, page: request.page, page_size: request.pageSize };
}
