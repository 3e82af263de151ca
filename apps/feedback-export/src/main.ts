import 'reflect-metadata';
import { runServices } from '#libs/common';
import { feedbackExportService } from './feedback-export.app.js';

await runServices([feedbackExportService()]);
