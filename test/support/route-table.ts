import { RequestMethod, type INestApplication } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import type { Express } from 'express';

/** One route as the Nest router mapped it, with the inputs its handler reads. */
export interface RouteEntry {
  method: string;
  /** Express's form, e.g. /admin/keys/:id */
  path: string;
  /** Path parameters, from the path itself. */
  params: string[];
  /** Query fields: those of the @Query() DTO, or the @Query('name') ones. */
  query: string[];
  /** Body fields of the @Body() DTO; null when the handler reads no body. */
  body: string[] | null;
}

/**
 * Every route of the running app whose path starts with one of `prefixes`, read from the Nest
 * router's metadata (controllers, their handlers, the @Param/@Query/@Body arguments and the
 * class-validator fields of their DTOs), so a route or a field added later is in the table
 * without anyone listing it.
 */
export function nestRoutes(app: INestApplication, prefixes: string[]): RouteEntry[] {
  const routes: RouteEntry[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) continue;
      const base = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
      for (const name of methodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const own = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (own === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        for (const prefix of base)
          for (const suffix of pathsOf(own)) {
            const path = `/${[prefix, suffix].filter(Boolean).join('/')}`.replace(/\/+/g, '/');
            if (!prefixes.some((wanted) => path.startsWith(wanted))) continue;
            routes.push({ method, path, ...inputsOf(controller, name, path) });
          }
      }
    }
  }
  return routes.sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`));
}

/**
 * The routes Express serves under `prefixes`, to catch one mounted around Nest's controllers.
 * Middleware bound with forRoutes(ALL) is mounted for every HTTP method at once; it is left out.
 */
export function expressRoutes(app: INestApplication, prefixes: string[]): string[] {
  const express = app.getHttpAdapter().getInstance() as Express & {
    router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> };
  };
  return express.router.stack
    .filter(({ route }) => route && Object.keys(route.methods).length < 5)
    .flatMap(({ route }) =>
      route
        ? Object.keys(route.methods).map((method) => `${method.toUpperCase()} ${route.path}`)
        : [],
    )
    .filter((route) => prefixes.some((prefix) => route.split(' ')[1].startsWith(prefix)))
    .sort();
}

/** A controller's method names, inherited ones included, as Nest's own scanner finds them. */
function methodNames(prototype: object): string[] {
  const names = new Set<string>();
  for (
    let proto = prototype;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  )
    for (const name of Object.getOwnPropertyNames(proto)) names.add(name);
  return [...names];
}

function pathsOf(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value ?? '']).map((path) =>
    String(path).replace(/^\/+|\/+$/g, ''),
  );
}

function inputsOf(controller: object, handler: string, path: string) {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<
    string,
    { index: number; data?: unknown }
  >;
  const types = (Reflect.getMetadata(
    'design:paramtypes',
    (controller as { prototype: object }).prototype,
    handler,
  ) ?? []) as unknown[];
  const params = [...path.matchAll(/:(\w+)/g)].map((match) => match[1]);
  const query: string[] = [];
  let body: string[] | null = null;
  for (const [key, { index, data }] of Object.entries(args)) {
    const kind = Number(key.split(':')[0]);
    const fields = typeof data === 'string' ? [data] : fieldsOf(types[index]);
    if (kind === RouteParamtypes.QUERY) query.push(...fields);
    if (kind === RouteParamtypes.BODY) body = [...(body ?? []), ...fields];
  }
  return { params, query: [...new Set(query)], body };
}

/** The fields class-validator checks on a DTO class (inherited ones included). */
function fieldsOf(type: unknown): string[] {
  if (typeof type !== 'function' || type === Object) return [];
  const metadata = getMetadataStorage().getTargetValidationMetadatas(
    type as new () => object,
    '',
    true,
    false,
  );
  return [...new Set(metadata.map((entry) => entry.propertyName))];
}
