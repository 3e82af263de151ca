import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ApiEnvelope, ApiErrors, CurrentPrincipal, CurrentUserId, ErrorCode, PositiveIntPipe, RateLimit, UseAuth, type PrincipalOf } from '#libs/common';
import { CreateTodoDto, UpdateTodoDto } from './dto/todo-input.dto.js';
import { ListTodosQuery } from './dto/list-todos.query.js';
import { DeletedTodoDto, TodoDataDto, TodoListDto } from './dto/todo.dto.js';
import { TODO_RATE_LIMIT } from './todo-rate-limit.js';
import { TodosService } from './todos.service.js';

const API_KEY_ERRORS = [ErrorCode.API_KEY_REQUIRED, ErrorCode.INVALID_API_KEY, ErrorCode.SUBSCRIPTION_REQUIRED, ErrorCode.RATE_LIMITED] as const;
const TODO_ID_PARAM = { name: 'todoId', schema: { type: 'integer', minimum: 1 }, description: 'Id of a todo of the API key’s account' } as const;

@ApiTags('Todos')
@Controller('api/v1/todos')
@UseAuth('api-key')
@RateLimit(TODO_RATE_LIMIT)
export class TodosController {
  constructor(private readonly todos: TodosService) {}

  @Get()
  @ApiOperation({
    operationId: 'listTodos',
    summary: 'List your todos',
    description: 'Filter by category, priority and text; sort by createdAt (default, ascending) or priority; page with `nextCursor`.',
  })
  @ApiEnvelope(TodoListDto)
  @ApiErrors(...API_KEY_ERRORS)
  list(@CurrentUserId() userId: string, @Query() query: ListTodosQuery): Promise<TodoListDto> {
    return this.todos.list(userId, query);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createTodo',
    summary: 'Create a todo',
    description:
      'With an `Idempotency-Key` header, a repeat of the same request with the same key (per API key, within 24 hours) ' +
      'answers the first response again (201, same body, header `Idempotent-Replayed: true`) and creates nothing. ' +
      'The same key with a different body is 422 IDEMPOTENCY_KEY_REUSED. Concurrent requests with one key create one todo.',
  })
  @ApiHeader({ name: 'Idempotency-Key', required: false, description: '1..255 visible ASCII characters, e.g. a UUID' })
  @ApiEnvelope(TodoDataDto, { status: 201 })
  @ApiErrors(...API_KEY_ERRORS, ErrorCode.IDEMPOTENCY_KEY_REUSED)
  async create(
    @CurrentPrincipal() principal: PrincipalOf<'api-key'>,
    @Body() body: CreateTodoDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TodoDataDto> {
    const outcome = await this.todos.create({ userId: principal.userId, apiKeyId: principal.credentialId }, body, idempotencyKey);
    if (outcome.replayed) response.setHeader('Idempotent-Replayed', 'true');
    return outcome.data;
  }

  @Get(':todoId')
  @ApiOperation({ operationId: 'getTodo', summary: 'Get one todo' })
  @ApiParam(TODO_ID_PARAM)
  @ApiEnvelope(TodoDataDto)
  @ApiErrors(...API_KEY_ERRORS, ErrorCode.NOT_FOUND)
  get(@CurrentUserId() userId: string, @Param('todoId', PositiveIntPipe) todoId: number): Promise<TodoDataDto> {
    return this.todos.get(userId, todoId);
  }

  @Put(':todoId')
  @ApiOperation({ operationId: 'updateTodo', summary: 'Update a todo', description: 'Give at least one property; `estimatedDurationMinutes: null` clears it.' })
  @ApiParam(TODO_ID_PARAM)
  @ApiEnvelope(TodoDataDto)
  @ApiErrors(...API_KEY_ERRORS, ErrorCode.NOT_FOUND)
  update(@CurrentUserId() userId: string, @Param('todoId', PositiveIntPipe) todoId: number, @Body() body: UpdateTodoDto): Promise<TodoDataDto> {
    return this.todos.update(userId, todoId, body);
  }

  @Delete(':todoId')
  @ApiOperation({ operationId: 'deleteTodo', summary: 'Delete a todo' })
  @ApiParam(TODO_ID_PARAM)
  @ApiEnvelope(DeletedTodoDto)
  @ApiErrors(...API_KEY_ERRORS, ErrorCode.NOT_FOUND)
  delete(@CurrentUserId() userId: string, @Param('todoId', PositiveIntPipe) todoId: number): Promise<DeletedTodoDto> {
    return this.todos.delete(userId, todoId);
  }
}
