// @ts-check
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'migrations/**', 'coverage/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    rules: {
      // Numbers and booleans read naturally in messages; objects and undefined stay refused.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // SQL is never built by concatenating values: prepare(), exec() and pragma() take literal text only
      // (a pragma's value cannot be bound: see src/db/pragmas.ts for how the store sets one).
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.property.name=/^(prepare|exec|pragma)$/] > TemplateLiteral[expressions.length>0]',
          message: 'Build SQL with bound parameters, not template interpolation.',
        },
        {
          selector:
            "CallExpression[callee.property.name=/^(prepare|exec|pragma)$/] > BinaryExpression[operator='+']",
          message: 'Build SQL with bound parameters, not string concatenation.',
        },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
)
