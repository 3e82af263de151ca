import 'reflect-metadata';
import { runServices } from '#libs/common';
import { feedbackExportService } from './feedback-export/src/feedback-export.app.js';
import { todoApiService } from './todo-api/src/todo-api.app.js';

// `npm start`: both services in one process, sharing one database (embedded unless DATABASE_URL is set).
await runServices([todoApiService(), feedbackExportService()]);
