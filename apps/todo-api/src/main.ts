import 'reflect-metadata';
import { runServices } from '#libs/common';
import { todoApiService } from './todo-api.app.js';

await runServices([todoApiService()]);
