// Reference points: the cheapest possible answers from bare Express and bare Nest
// (no database, no auth), to show what the frameworks themselves cost on this machine.
import 'reflect-metadata';
import express from 'express';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

const kind = process.argv[2];
const port = Number(process.env.PORT);

if (kind === 'express') {
  const app = express();
  app.get('/hello', (_req, res) => res.json({ success: true, data: { hello: 'world' } }));
  app.listen(port, '127.0.0.1');
} else {
  class HelloController {
    hello() {
      return { success: true, data: { hello: 'world' } };
    }
  }
  Controller()(HelloController);
  Get('hello')(HelloController.prototype, 'hello', Object.getOwnPropertyDescriptor(HelloController.prototype, 'hello'));
  class HelloModule {}
  Module({ controllers: [HelloController] })(HelloModule);
  const app = await NestFactory.create(HelloModule, { logger: false });
  await app.listen(port, '127.0.0.1');
}
