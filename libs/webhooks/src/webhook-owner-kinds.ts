/**
 * The owner kinds of webhook endpoints, as stored in `webhook_endpoints.owner_kind`: the database's vocabulary (the
 * todo_events and feedback_events triggers name them), so each app names its own from here, and todo-api's account
 * export finds the endpoints of the account's sites by the same word feedback-export wrote.
 */
export const WEBHOOK_OWNER_KINDS = {
  /** todo-api's endpoints; owner id: the user id. */
  account: 'account',
  /** feedback-export's endpoints; owner id: the site id. */
  site: 'site',
} as const;
