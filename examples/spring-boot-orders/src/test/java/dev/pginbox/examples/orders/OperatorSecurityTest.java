package dev.pginbox.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/** The operator's password comes from the environment or the application does not start. */
class OperatorSecurityTest {

  private final WebApplicationContextRunner application =
      new WebApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  SecurityAutoConfiguration.class, ServletWebSecurityAutoConfiguration.class))
          .withUserConfiguration(OperatorSecurity.class);

  @Test
  void without_an_operator_password_the_application_fails_to_start_naming_the_variable() {
    application.run(
        context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure())
              .rootCause()
              .hasMessageContaining("EXAMPLE_OPERATOR_PASSWORD");
        });
  }

  @Test
  void with_an_operator_password_the_operator_exists_and_no_other_user() {
    application
        .withPropertyValues("example.operator.password=s3cret")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(OperatorSecurity.class)).isNotNull();
              assertThat(
                      context
                          .getBean(InMemoryUserDetailsManager.class)
                          .loadUserByUsername("operator")
                          .getAuthorities())
                  .extracting(Object::toString)
                  .containsExactly("ROLE_OPERATOR");
            });
  }
}
