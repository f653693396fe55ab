/** Files (upload, list, download, delete) and link previews. */
import { z } from "zod";
import { operations } from "../operation.ts";
import { queryLimit } from "../fields.ts";

export const FILES = operations({
  getFiles: {
    method: "get",
    path: "/files",
    summary: "Retrieve list of uploaded files.",
    tags: ["files"],
    query: z.object({
      after: z.string().max(100).meta({
        description:
          'Find files after a file ID, can be "after", "prev" or the last file ID from the response',
      }).optional(),
      limit: queryLimit(60, 60).meta({
        description: "Max number of files to retrieve",
        type: "integer",
      }),
    }),
    responses: {
      200: {
        description: "Files found",
        schema: z.object({
          after: z.string().meta({
            description: 'Can be used as "after" query param to get the current page',
          }).optional(),
          files: z.array(z.object({
            id: z.string(),
            name: z.string(),
            saved: z.string().meta({ format: "date-time" }),
            size: z.number().int(),
          })).optional(),
          next: z.string().meta({ description: "Indicates if there is a next page" }).optional(),
          prev: z.string().meta({
            description: 'Can be used as "after" query param to go to the previous page',
          }).optional(),
          usage: z.object({
            bytes: z.number().int().meta({ description: "What all the user's files take" }),
            max_bytes: z.number().int().meta({
              description: "The most they may take together (0: no bound)",
            }),
          }).optional(),
        }),
      },
    },
  },
  uploadFile: {
    method: "post",
    path: "/files",
    summary: "Upload file.",
    tags: ["files"],
    consumes: ["application/x-www-form-urlencoded", "multipart/form-data"],
    form: z.object({
      file: z.file(),
      id: z.string().optional(),
      write_only: z.boolean().optional(),
    }),
    responses: {
      200: {
        description: "Successfully uploaded.",
        schema: z.object({
          files: z.array(z.object({
            ext: z.string(),
            filename: z.string(),
            id: z.string(),
            saved: z.string().meta({ format: "date-time" }),
            uid: z.string(),
            url: z.string().meta({ format: "uri" }),
          })).optional(),
        }),
      },
    },
  },
  getFile: {
    method: "get",
    path: "/files/{uid}/{fid}",
    summary: "Retrieve uploaded file.",
    tags: ["files"],
    produces: [
      "application/pdf",
      "application/zip",
      "audio/mpeg",
      "audio/ogg",
      "image/gif",
      "image/jpeg",
      "image/png",
      "text/html",
      "video/mp4",
      "video/ogg",
      "video/webm",
    ],
    params: z.object({
      fid: z.string(),
      uid: z.string(),
    }),
    responses: {
      200: { description: "File found and served.", schema: z.string() },
    },
  },
  deleteFiles: {
    method: "delete",
    path: "/files/{uid}/{fid}",
    summary: "Delete one (or more) uploaded file.",
    tags: ["files"],
    params: z.object({
      fid: z.string(),
      uid: z.string(),
    }),
    responses: {
      200: {
        description: "Successfully deleted.",
        schema: z.object({
          deleted: z.number().int().optional(),
        }),
      },
    },
  },
  embed: {
    method: "get",
    path: "/embed",
    summary: "Get information from a URL",
    tags: ["misc"],
    "x-formats": ["html", "json", "jsonp"],
    query: z.object({
      url: z.string({ error: "url is required." }).trim().min(1, { error: "url is required." })
        .max(4096, { error: "url is too long." }).meta({ description: "URL to resource" }),
      callback: z.string().meta({ description: "The JSONP function name, for /embed.jsonp." })
        .optional(),
    }),
    responses: {
      200: { description: "Information about resource." },
    },
  },
  embedImage: {
    method: "get",
    path: "/embed/image",
    summary: "A preview image, fetched by the server",
    description:
      "Parley's own: the image at `url` (PNG, JPEG, GIF, WebP or AVIF, at most 5 MB) under the " +
      "same address rules as /embed, so the browser never contacts the remote site.",
    tags: ["misc"],
    produces: ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"],
    query: z.object({
      url: z.string({ error: "url is required." }).trim().min(1, { error: "url is required." })
        .max(4096, { error: "url is too long." }).meta({ description: "URL of the image" }),
    }),
    responses: {
      200: { description: "The image." },
    },
  },
});
