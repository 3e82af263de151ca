import 'reflect-metadata';
import { runServices } from '#libs/common';
import { createTodoApiApp } from './todo-api.app.js';

await runServices([
  { name: 'todo-api', port: (config) => config.todoApiPort, portVariable: 'TODO_API_PORT', create: (config, databaseUrl) => createTodoApiApp({ config, databaseUrl }) },
]);
