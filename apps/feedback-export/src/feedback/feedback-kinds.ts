/** The values the feedback table's CHECK constraints allow for `type` and `status`. */
export const FEEDBACK_TYPES = ['feedback', 'feature_request', 'bug'] as const;
export const FEEDBACK_STATUSES = ['new', 'triaged', 'resolved'] as const;
export type FeedbackType = (typeof FEEDBACK_TYPES)[number];
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];
