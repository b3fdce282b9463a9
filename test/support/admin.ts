import request from 'supertest';

export const ADMIN_KEY = 'admin-test-credential-0123456789';

/** supertest calls to a gateway's admin API, authenticated with ADMIN_KEY. */
export function adminApi(baseUrl: string) {
  const auth = `Bearer ${ADMIN_KEY}`;
  return {
    get: (path: string) => request(baseUrl).get(`/admin${path}`).set('Authorization', auth),
    post: (path: string, body: object = {}) =>
      request(baseUrl).post(`/admin${path}`).set('Authorization', auth).send(body),
    patch: (path: string, body: object) =>
      request(baseUrl).patch(`/admin${path}`).set('Authorization', auth).send(body),
    delete: (path: string) => request(baseUrl).delete(`/admin${path}`).set('Authorization', auth),
  };
}
