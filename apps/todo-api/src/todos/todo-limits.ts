/** The published limits of a todo (todo-service.md), shared by the REST DTOs and the MCP tool schemas. */
export const TODO_LIMITS = {
  textMaxLength: 5000,
  categoryMaxLength: 100,
  priorityMin: 1,
  priorityMax: 4,
  listDefaultLimit: 100,
  listMaxLimit: 500,
  /** Items of one bulk write (the MCP create_todos / update_todos). */
  bulkMaxItems: 50,
} as const;

export const TODO_SORTS = ['createdAt', 'priority'] as const;
export type TodoSort = (typeof TODO_SORTS)[number];
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/** How long todo events stay available for Last-Event-ID resume. */
export const EVENT_RETENTION_HOURS = 24;
